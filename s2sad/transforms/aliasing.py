"""Aliasing: ``y = x[1:]; y += 1.0`` changes ``x`` too, so it is refused where ``x`` is
differentiated.

Each local name maps to the memory blocks its value may use (``Normalize.node``); two names
may alias when their sets meet. Views (``x[1:]``, ``x.T``, ``np.reshape``) share their
argument's blocks, copies get new ones, and a call s2sad does not know shares what it was
given. An in-place update (``x += e``, ``y[i] = v``, a mutating call) is refused at the
user's line where the value may alias one read later, or the caller's argument. Where only
the kinds can tell (a number is never shared), the refusal waits for them. This is a
may-alias analysis: it over-approximates, so it never misses an alias.
"""

from __future__ import annotations

import copy
import re

import gast
import numpy as np

from .. import trees
from .. import registry
from ..codegen import unparse
from ..errors import NoDerivativeError


_AUG = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
        gast.MatMult: "@", gast.FloorDiv: "//", gast.Mod: "%", gast.BitOr: "|",
        gast.BitAnd: "&", gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>"}


# the kinds of value a local name may hold whose methods' facts are known (x.fill(v): an
# array's, x.sort(): an array's or a list's)
_RECEIVERS = (np.ndarray, list, dict, tuple)


def _copy_position(func) -> int | None:
    """The position of ``func``'s ``copy`` parameter (``np.nan_to_num(x, False)``), or
    None."""
    try:
        parameters = list(registry.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    for i, p in enumerate(parameters):
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            return None
        if p.name == "copy":
            return i
    return None


def uncopied(call, func) -> bool:
    """Does ``call`` (of ``func``) pass ``copy`` other than ``True`` (``copy=False``,
    ``copy=None``, ``np.nan_to_num(x, False)``)?"""
    given = [k.value for k in call.keywords if k.arg == "copy"]
    place = _copy_position(func)
    if place is not None and place < len(call.args):
        given.append(call.args[place])
    return any(not (isinstance(v, gast.Constant) and v.value is True) for v in given)


def _mutated_argument(call, facts, func=None):
    """``(how, argument, advice)`` for an argument of ``call`` that ``facts`` say the
    function writes into, given by position (``how``: ``"out"`` for its output array,
    else ``"in place"``; ``func``: the function, whose ``copy`` parameter may make it
    write in place); None if none (``out=`` by keyword is found by its name)."""
    if facts is None:
        return None
    if facts.uncopied_mutates and uncopied(call, func):
        for position in facts.uncopied_mutates:
            if position < len(call.args) and \
                    not any(isinstance(a, gast.Starred) for a in call.args[:position + 1]):
                return "in place", call.args[position], facts.advice
    for position in facts.mutates:
        if isinstance(position, int) and position < len(call.args) and \
                not any(isinstance(a, gast.Starred) for a in call.args[:position + 1]):
            arg = call.args[position]
            if isinstance(arg, gast.Constant) and arg.value is None:
                continue
            return "out" if "out" in facts.mutates else "in place", arg, facts.advice
    return None


def _drop_default_out(call, facts) -> None:
    """``np.sin(x, None)``, ``np.sum(x, out=None)``: ``out=None`` is the default, by
    position (the last one) or by keyword; the call is written without it, as its rule
    takes it. Only where ``facts`` say ``out`` is the function's output array."""
    if facts is None or "out" not in facts.mutates:
        return
    def none(node) -> bool:
        return isinstance(node, gast.Constant) and node.value is None
    call.keywords = [k for k in call.keywords if not (k.arg == "out" and none(k.value))]
    position = next((p for p in facts.mutates if isinstance(p, int)), None)
    if position == len(call.args) - 1 and none(call.args[-1]) and \
            not any(isinstance(a, gast.Starred) for a in call.args):
        call.args.pop()


def _data_names(node, new) -> list[str]:
    """The names whose memory ``node`` may be: not the functions it calls, nor what a
    call ``new(call)`` says makes a new array reads: ``['z']`` for ``z[0]`` or
    ``np.asarray(z)``, ``[]`` for ``np.zeros(3)`` or ``np.empty_like(z)``."""
    hidden = {id(n) for call in trees.walk(node) if isinstance(call, gast.Call)
              for n in trees.walk(call if new(call) else call.func)}
    return [n.id for n in trees.walk(node) if isinstance(n, gast.Name) and id(n) not in hidden]


def _output_made_here(call, func, out, dotted: str, source, stmt):
    """The refusal of ``np.sin(x, np.zeros(3))``: an output array made on the line, which
    the call fills and returns; the advice, the call without it."""
    plain = gast.Call(func, [a for a in call.args if a is not out],
                      [k for k in call.keywords if k.value is not out])
    advice = f"Leave the output array out: `{unparse(plain).strip()}` makes a new array."
    if any(k.arg == "where" for k in call.keywords):  # (without out=: garbage there)
        advice = ("Call it in a statement of its own (`r = ...(..., out=np.zeros_like(x), "
                  "where=...)`), or make the output first (`out = np.zeros_like(x)`) and "
                  "pass `out=out`: without `out=`, the entries `where=` leaves out are "
                  "left uninitialized.")
    return source.syntax_error(
        f"`{dotted}(...)` with an output array made on the line "
        f"(`{unparse(out).strip()}`), which it fills in place where the reverse sweep "
        "cannot see it", stmt, advice)



def _closure_reads(tree) -> dict:
    """``{name: names its value may read when called}`` for the nested ``def`` and lambdas
    of ``tree`` (the free names their bodies load) and the names given a value holding
    one (``h = g``, ``fs = [g]``, ``p = partial(g, a)``), which a call reads through.

    >>> import gast
    >>> tree = gast.parse("def f(x):\\n    def g():\\n        return a * 2\\n"
    ...                   "    h = lambda: b\\n    fs = [g, h]\\n    r = g()").body[0]
    >>> {k: sorted(v) for k, v in sorted(_closure_reads(tree).items())}
    {'fs': ['a', 'b', 'g', 'h'], 'g': ['a'], 'h': ['b']}
    """
    reads: dict[str, set] = {}
    for node in trees.walk(tree):
        if isinstance(node, gast.FunctionDef) and node is not tree:
            reads.setdefault(node.name, set()).update(_loads(node.body))
        elif isinstance(node, gast.Assign) and isinstance(node.value, gast.Lambda):
            for target in node.targets:
                if isinstance(target, gast.Name):
                    reads.setdefault(target.id, set()).update(_loads([node.value.body]))
    changed = bool(reads)
    while changed:  # (h = g, fs = [g], a closure calling another: what they read too)
        changed = False
        for node in trees.walk(tree):
            if not isinstance(node, gast.Assign):
                continue
            called = {id(c.func) for c in trees.walk(node.value) if isinstance(c, gast.Call)}
            loaded = {n.id for n in trees.walk(node.value) if isinstance(n, gast.Name) and
                      isinstance(n.ctx, gast.Load) and id(n) not in called}  # (not r = g())
            held = set().union(*(reads[k] | {k} for k in loaded & reads.keys()))
            for target in node.targets:
                for t in trees.walk(target):
                    if isinstance(t, gast.Name) and held - reads.get(t.id, set()):
                        reads.setdefault(t.id, set()).update(held)
                        changed = True
        for holder, names in reads.items():
            inner = set().union(*(reads[k] for k in names & reads.keys() if k != holder))
            if inner - names:
                names |= inner
                changed = True
    return reads


def _loads(nodes) -> set:
    return {n.id for s in nodes for n in trees.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _joined(value) -> list:
    """The parts of a chain of ``+``, ``*`` and ``|`` (``t_1 + t_2 + ys[0:]``: three)."""
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult,
                                                               gast.BitOr)):
        return _joined(value.left) + _joined(value.right)
    return [value]


def _enclosed_update(name: str, outer: str, op: str | None = None) -> str:
    """The refusal of an update of an array the function does not own: the enclosing
    function's (in a nested ``def``), or a module's.

    >>> _enclosed_update("v", "'a' of the enclosing function", "+")
    "`v += ...` on a value shared with 'a' of the enclosing function"
    """
    shown = f"`{name} {op}= ...` on a value shared with" if op else \
        f"an in-place update of {name!r}, which shares its memory with"
    return f"{shown} {outer}"


_ENCLOSED_HINT = ("It changes that array where s2sad would not see it. Return a new value "
                  "instead, or copy first: `{name} = {name}.copy()`.")


def _update_of(name: str, owner: str) -> str:
    """What an update of ``name`` in place changes: the argument ``owner`` itself, or
    through another name (``y = x``, ``y = x[:2]``: the user's line names ``y``).

    >>> _update_of("x", "x")
    "an in-place update of the argument 'x'"
    >>> _update_of("y", "x")
    "an in-place update of 'y', which shares its memory with the argument 'x'"
    >>> _update_of("self.data", "self.data")
    'an in-place update of the attribute self.data'
    """
    whose = f"the attribute {owner}" if "." in owner else f"the argument {owner!r}"
    if name == owner:
        return f"an in-place update of {whose}"
    return f"an in-place update of {name!r}, which shares its memory with {whose}"

def _owned_advice(attr: str, advice: str) -> str:
    """``advice`` for ``v.attr(...)``, said of the kinds of value whose method that is, where
    another kind has none: ``p.update(dt)`` may be an object of the user's, not a dict.

    >>> _owned_advice("update", "Build a new dict.")
    'If it is a dict: Build a new dict. If it is an object of your class, its method \
changes its arrays in place (self.x += v, self.x[:] = v): give them new arrays instead \
(self.x = self.x + v).'
    """
    owners = [kind.__name__ for kind in _RECEIVERS if getattr(kind, attr, None) is not None]
    if not advice or len(owners) == len(_RECEIVERS):
        return advice
    return (f"If it is a {' or a '.join(owners)}: {advice} If it is an object of your "
            "class, its method changes its arrays in place (self.x += v, self.x[:] = v): "
            "give them new arrays instead (self.x = self.x + v).")


class Aliasing:
    """The memory of :class:`Normalize`: names that may share memory; unsafe updates refused."""

    def _stored_before_read(self, target, later, shown) -> None:
        """``z[0:2], z[2:4] = z[2:4], z[0:2]``: Python stores the parts in turn, so a part
        stored later that is a view of ``z`` (a slice, a row) holds the values the earlier
        store wrote. Refused when such a part may share ``z``'s memory (unless it turns out
        a number: ``z[1]`` of a vector is a copy)."""
        if not isinstance(target, gast.Subscript) or self.trusted:
            return
        name = target.value.id
        mine = self.current.get(name)
        if mine is None or mine in self.made and mine not in self.unmade:
            return  # (a list's slot: storing into it changes no item)
        blocks = self.node.get(mine, frozenset())
        for k, part in enumerate(later):
            if not isinstance(part, gast.Name) or not blocks & self.node.get(part.id, blocks):
                continue
            what = f"`{unparse(shown[k]).strip()}`" if k < len(shown) else "a part"
            error = self.source.syntax_error(
                f"storing into {name!r} before the right side's {what} is stored: it may be "
                f"a view of {name!r}, so Python would store the values changed", self.stmt,
                f"Copy what the right side reads from {name!r} first, e.g. "
                f"`{what.strip('`')}.copy()`." if k < len(shown) else
                f"Copy what the right side reads from {name!r} first (`.copy()`).")
            self.root.deferred.append((part.id, self.with_calls(error)))
            return

    def _made_here(self, value) -> bool:
        """Is ``value`` a list or dict made here, that no other name holds: a display, a
        comprehension's list, ``[h] * n``, ``[a] + ys``, ``list(...)`` (a copy)? A slot
        of it may be set: that changes the slot, not the values the slots hold."""
        def made(node) -> bool:  # (a temporary holding a display or a comprehension's list)
            return isinstance(node, (gast.List, gast.Dict)) or isinstance(node, gast.Name) \
                and node.id in self.temps and node.id in self.made
        return made(value) or isinstance(value, gast.BinOp) and (
            isinstance(value.left, gast.List) or isinstance(value.op, (gast.Add, gast.Mult))
            and (made(value.left) or made(value.right))) or (  # [None] * n
            isinstance(value, gast.Call) and self._callee(value.func) is list)  # a copy

    def _refuse_hidden_updates(self, stmt):
        """A call that changes an array or list in place (``x.sort()``, ``x.fill(v)``,
        ``out=x``, ``np.copyto(x, v)``...): the reverse sweep cannot see it, so it is
        refused, never differentiated wrongly. ``xs.append(v)`` on a list the function
        made is the exception (it is followed)."""
        for node in trees.walk(stmt):
            if not isinstance(node, gast.Call):
                continue
            self._refuse_passed_method(node, stmt)
            func, changed, what, hint = node.func, None, None, None
            callee = self._callee(func)
            _drop_default_out(node, registry.facts(callee))  # (np.sin(x, None))
            method = self._method_facts(func.attr) if isinstance(func, gast.Attribute) \
                else None  # (what a method of that name does to an array, list or dict)
            mutating = method is not None and 0 in method.mutates
            if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                    func.value.id in self.locals and mutating:
                changed, what = func.value.id, f"`{func.value.id}.{func.attr}(...)`"
                hint = "" if func.attr == "append" else _owned_advice(
                    func.attr, method.advice.format(n=changed))
                holder = next((h for h in sorted(self.holders.get(
                    self.current.get(changed), ())) if h != changed and
                    self._read_later(stmt, h)), None)
                if func.attr == "append" and holder is not None and not self.trusted:
                    raise self.source.syntax_error(
                        f"`{changed}.append(...)` on a list that {holder!r} reaches too",
                        stmt, f"The reverse sweep follows the list by the name {changed!r} "
                        f"only, so {holder!r} would be differentiated as if it had not "
                        f"changed. Append before the list is shared, or make a new one: "
                        f"`{changed} = {changed} + [...]`.")
                if func.attr == "append" and isinstance(stmt, gast.Expr) and \
                        stmt.value is node and (self.parent is not None or  # (a helper's:
                        self.current.get(changed) not in set(self.callers.values())):
                    continue  # a list the function made: followed (a statement of its own;
                    # in a helper, the caller's list, carry_back; whatever its names)
            elif isinstance(func, gast.Attribute) and isinstance(
                    func.value, (gast.Subscript, gast.Attribute)) and callee is None and \
                    mutating:
                root = func.value  # d["a"].append(v): a list held in d, changed unseen
                while isinstance(root, (gast.Subscript, gast.Attribute)):
                    root = root.value
                holder = root.id if isinstance(root, gast.Name) else "a container"
                part = unparse(func.value).strip()  # (a[1:].sort(): a view of a, sorted;
                advice = method.advice.format(n=part) if method.advice and \
                    func.attr != "append" else ""  # a[1:] =
                raise self.source.syntax_error(                                  # np.sort)
                    f"`{unparse(func)}(...)`, which changes a value held in "
                    f"{holder!r} in place where the reverse sweep cannot see it", stmt,
                    advice or "Give the list a name of its own, append to it (or build "
                    "it whole), and put it in afterwards.")
            elif isinstance(func, gast.Attribute) and isinstance(func.value, gast.Call) and \
                    callee is None and mutating and self._may_return_argument(func.value):
                names = [n.id for n in trees.walk(func.value) if isinstance(n, gast.Name)
                         and n.id in self.locals and n.id in self.current]
                if not names:
                    continue  # (np.zeros(3).fill(v): a value made on the line)
                changed, what = names[0], f"`{unparse(func).strip()}(...)`"
                hint = method.advice.format(n=changed)  # x.reshape(3).fill(v) changes x
            elif any(k.arg == "out" for k in node.keywords):
                out = next(k.value for k in node.keywords if k.arg == "out")
                if isinstance(out, gast.Constant) and out.value is None:
                    continue
                names = _data_names(out, self._makes_new)
                if not names:
                    raise _output_made_here(node, func, out, self._dotted(func), self.source,
                                            stmt)
                changed = names[0]
                what = "`out=`"
                hint = f"Assign the result instead: `{changed} = {self._dotted(func)}(...)`."
            elif (written := _mutated_argument(node, registry.facts(callee), callee)) \
                    is not None:
                # np.copyto(y, v), heapq.heappush(ys, v), operator.iadd(y, v), np.clip(y,
                # 0, 1, y): an argument the function's facts say it writes into
                names = _data_names(written[1], self._makes_new)
                if not names and written[0] == "out":  # (np.sin(x, np.zeros(3)))
                    raise _output_made_here(node, func, written[1], self._dotted(func),
                                            self.source, stmt)
                ref = self._object_ref(written[1])
                if not names or ref is not None and ref[0] == "seq":
                    continue  # (a value made on the line, np.copyto(np.zeros(3), v); a list
                    # of objects: _refuse_object_changes)
                changed = names[0]
                if written[0] == "out":
                    what = f"`{self._dotted(func)}(...)` with an output array after its inputs"
                    hint = f"Assign the result instead: `{changed} = {self._dotted(func)}(...)`."
                else:
                    what = f"`{self._dotted(func)}({changed}, ...)`"
                    hint = written[2].format(n=changed) or \
                        f"Make a new array, or assign into it: `{changed}[...] = ...`."
            if changed is None:
                continue
            # the argument itself (a list holding the caller's arrays is the function's own)
            owner = self.current.get(changed)
            if owner in set(self.callers.values()):
                raise self.source.syntax_error(
                    _update_of(changed, owner), stmt,
                    f"{what} would change the caller's value. Work on a copy "
                    f"(`{changed} = {changed}.copy()`) or compute a new value. {hint}".strip())
            raise self.source.syntax_error(
                f"{what}, which changes {changed!r} in place where the reverse sweep cannot "
                "see it", stmt, hint or "Compute a new value and assign it.")

    def _refuse_passed_method(self, call, stmt) -> None:
        """A method that changes its array or list in place, given to a call
        (``map(ys.append, xs)``, ``filter(z.sort, ...)``): whatever calls it changes the
        list where the reverse sweep cannot see it."""
        for arg in list(call.args) + [k.value for k in call.keywords]:
            if not (isinstance(arg, gast.Attribute) and isinstance(arg.value, gast.Name) and
                    arg.value.id in self.locals) or self.trusted:
                continue
            method = self._method_facts(arg.attr)
            if method is not None and 0 in method.mutates:
                name = arg.value.id
                raise self.source.syntax_error(
                    f"`{name}.{arg.attr}` given to `{self._dotted(call.func)}(...)`, which "
                    f"changes {name!r} in place where the reverse sweep cannot see it", stmt,
                    f"Call it in a loop of your own (`for v in xs: {name}.{arg.attr}(v)`) or "
                    "build the value whole (a list comprehension).")

    def _makes_new(self, call) -> bool:
        """Does ``call`` make a new array (``np.zeros(3)``, ``np.empty_like(z)``), one its
        facts say is not an argument nor a view of one?"""
        return self._callee(call.func) is not None and not self._may_return_argument(call)

    def _may_return_argument(self, call) -> bool:
        """May ``call`` (user code, not normalized) return one of its arguments, or a view
        of one (``x.reshape(3)``, ``np.asarray(x)``)? A new container holding the same items
        (``sorted(ys)``, ``ys.copy()``) is not: changing it leaves the argument as it was."""
        callee = self._callee(call.func)
        if callee is None and isinstance(call.func, gast.Attribute):
            found = self._method_facts(call.func.attr)
            if call.func.attr == "copy" and found is not None:
                return False  # (an array's, a list's, a dict's copy)
        else:
            found = registry.facts(callee)
        if found is None:
            return True
        if found.returns_view_of == "*":
            import builtins
            return getattr(callee, "__module__", None) not in (builtins.__name__, copy.__name__)
        return bool(found.returns_view_of or found.uncopied_view_of)

    def setitem(self, stmt, target, index, value):
        """``y[i] = v``: allowed on arrays and lists the function made itself."""
        if not isinstance(target.value, gast.Name):  # (ls[0][1] = v in a helper inlined)
            raise self.source.syntax_error(
                "assignment into a nested element (`y[i][j] = ...` or `f(x)[i] = ...`)",
                stmt, "Index once: `y[i, j] = ...` for arrays, or name the inner list first.")
        name = target.value.id
        if name not in self.locals or name not in self.current:
            raise self.source.syntax_error(
                f"assignment into {name!r}, which is not a local variable", stmt,
                f"Copy it first (`{name} = {name}.copy()`) and update the copy.")
        mine = self.current[name]
        if mine in self.made and mine not in self.unmade or self._callers_display(mine):
            if isinstance(index, gast.Slice) and not self.trusted:  # (its slot, not what
                # it holds)
                raise self._list_slice_error(stmt, name)
            holder = None if self.trusted else next((h for h in sorted(self.holders.get(
                mine, ())) if h != name and self._read_later(stmt, h)), None)
            if holder is not None:
                raise self.source.syntax_error(
                    f"an in-place update of {name!r}, which {holder!r} reaches too", stmt,
                    f"Copy first (`{name} = list({name})` or `dict({name})`), so that "
                    f"{holder!r} keeps its value.")
            self.emit(gast.Assign([gast.Subscript(self.load(mine), index, gast.Store())],
                                  value, None))
            self.node[mine] = self._blocks_of([mine] + self.views(value))  # it holds value
            self.note_outer_stored(mine, self.views(value))
            if isinstance(value, gast.Name):
                self.holders.setdefault(value.id, set()).add(name)
            return
        shown = None if self.trusted else next((  # b = a, a a list or dict made here:
            h for h in sorted(self.holders.get(mine, ())) if h != name and  # b[0] = v
            self.current.get(h) in self.made and self.current.get(h) not in self.unmade and
            self._read_later(stmt, h)), None)  # sets a's slot (not the argument its items
        if shown is not None:                  # came from)
            raise self.source.syntax_error(
                f"an in-place update of {name!r}, which {shown!r} reaches too", stmt,
                f"Set the item through {shown!r} (the reverse sweep follows a list or dict "
                f"by one name), or copy first (`{name} = {name}.copy()`) if {shown!r} should "
                "keep its value.")
        self._refuse_kept(stmt, name)
        owners = self.sharing(name)
        owner = None if self.trusted else self.caller_of(mine)
        shared = self._callers_display_shared(mine) if owner is not None else None
        if shared is not None:
            raise self.source.syntax_error(
                f"a store into {name!r}, the caller's list or dict, which "
                f"{' and '.join(map(repr, shared))} reach there", stmt,
                "The reverse sweep follows it by one name: in the caller, pass it by the "
                "name that reads it afterwards, and give it no other name.")
        if owner is not None and self.parent is not None and not isinstance(
                index, gast.Slice) and not any(mine in s.made for s in self._ancestors()):
            refusal = self._callers_array(stmt, name, mine)
            if refusal is None:  # (def set_item(y, v): y[1] = v, y a caller's own array)
                owner = None
            elif refusal is not False:
                raise refusal
        if owner is not None:
            raise self.source.syntax_error(
                _update_of(name, owner), stmt,
                f"It would change the caller's value. Work on a copy: "
                f"`{name} = {name}.copy()`.")
        outer = None if self.trusted else self.enclosing_of(mine)
        if outer is not None:
            raise self.source.syntax_error(
                _enclosed_update(name, outer), stmt, _ENCLOSED_HINT.format(name=name))
        readers = [] if self.trusted else [k for k in owners if self._read_later(stmt, k)]
        for reader in readers:  # (each: `t, c = p`, p = (y, 2.0): c a number, t not)
            error = self._shared_update_error(stmt, name, reader)
            if self.current.get(reader) is None:
                raise error
            # `a = z[2]` shares nothing if it is a number: refused once the kinds say it is not
            self.root.deferred.append((self.current[reader], self.with_calls(error)))
        if isinstance(index, gast.Slice) and not self.trusted:  # (a list from a helper)
            self.root.list_slices.append((mine, self.with_calls(self._list_slice_error(
                stmt, name))))
        subscript = gast.Subscript(self.load(mine), index, gast.Store())
        self.emit(gast.Assign([subscript], value, None))
        for at in range(len(self.root.deferred) - len(readers), len(self.root.deferred)):
            self.root.deferred[at] += (self.out[-1],)  # (or checked a number at run time,
            # before the store)

    def _callers_display(self, mine: str) -> bool:
        """Is ``mine``, in an inlined helper, a list or dict display a caller made and
        passed, which no other name reaches there? ``def put(ls, a): ls[0] = a`` then
        sets the caller's slot, as a store written there does (:meth:`setitem`).

        Each caller between, and the one that made it, must reach it by one name only
        (``other = ls`` there would not see the slot set)."""
        scope = self.parent
        while scope is not None and not self.trusted:
            reach = (set(scope.holders.get(mine, ())) | {
                k for k, v in scope.current.items() if v == mine}) - scope.temps  # (not
            # the list a comprehension built, then named)
            if len(reach) > 1:
                return False
            if mine in scope.made and mine not in scope.unmade:
                return True
            scope = scope.parent
        return False

    def _callers_array(self, stmt, name: str, mine: str):
        """``def set_item(y, v): y[1] = v`` inlined: ``mine`` is the value a caller made
        and passed (an array), and the store changes it there as one written in that
        caller would. None where it is followed: in each caller up to the one that made
        it, no other name that may share its memory is read after the call (a view of
        it, a list holding it, a nested def's default). Else the refusal, located at the
        helper's line; False where the value is the differentiated function's argument
        (refused as such)."""
        scope = self.parent
        while scope is not None:
            blocks = scope.node.get(mine)
            if blocks is None or scope.parent is None and scope.caller_of(mine) is not None:
                return False  # (the differentiated function's argument, or a view of it)
            readers = sorted(k for k, v in scope.current.items() if v != mine and
                             blocks & scope.node.get(v, frozenset()) and
                             scope._read_later(scope.stmt, k))
            kept = [shown for holder, atom, shown in scope.kept
                    if blocks & scope.node.get(atom, blocks)]
            if readers or kept or scope.enclosing_of(mine) is not None:
                shown = f"{readers[0]!r}" if readers else kept[0] if kept else \
                    "an enclosing function's value"
                return self.source.syntax_error(
                    f"an in-place update of {name!r}, the caller's array, which shares its "
                    f"memory with {shown} there, read after the call", stmt,
                    f"Return a new value from the helper instead (`{name} = "
                    f"{name}.copy()` first, then `return {name}`), or copy in the caller "
                    "before the call.")
            if scope.caller_of(mine) is None:
                return None  # (made there)
            scope = scope.parent
        return False

    def _callers_display_shared(self, mine: str) -> list | None:
        """The names that reach ``mine``, a caller's display that
        :meth:`_callers_display` refuses as reached by more than one; else None."""
        scope = self.parent
        while scope is not None:
            reach = (set(scope.holders.get(mine, ())) | {
                k for k, v in scope.current.items() if v == mine}) - scope.temps
            if len(reach) > 1 and any(mine in s.made and mine not in s.unmade
                                      for s in self._ancestors()):
                return sorted(reach)
            scope = scope.parent
        return None

    def _ancestors(self) -> list:
        found, scope = [], self.parent
        while scope is not None:
            found.append(scope)
            scope = scope.parent
        return found

    def _shared_update_error(self, stmt, name: str, reader: str):
        """The refusal of ``name[i] = v`` where ``reader``, read later, may share its
        memory (a view, a list holding it, a closure reading it)."""
        held = self.current.get(reader) in self.made  # (a list holding views)
        closure = self._closure_reader(stmt, reader)
        return self.source.syntax_error(
            f"an in-place update of {name!r}, which shares its memory with {reader!r}"
            f"{self._kept_by(reader)}",
            stmt, f"Copy first: the list {reader!r} holds views of {name!r}, so copy "
            f"each item as it goes in (`.copy()`), or update a copy (`{name} = "
            f"{name}.copy()` first). For {reader!r} to see the change, update {name!r} "
            "before it goes in." if held else
            f"{closure}() reads {reader!r} when it is called, after this update, so "
            f"Python's call sees the change. Pass the array to {closure}() as an "
            f"argument, or copy it (`{name} = {name}.copy()` first) so that "
            f"{reader!r} keeps its value." if closure else
            f"Copy first (`{name} = {name}.copy()`), so that {reader!r} keeps "
            f"its value; or, to change {reader!r} too, write into it: a view of an "
            "array made here by indexing it (ints, slices, None, `...`) or by `.T` is "
            "followed, and by `.reshape` of one np.zeros (np.ones, np.arange...) made; "
            "not a view made by another function, or of an array whose order may be "
            "Fortran's (np.zeros_like(x), np.array(x)).")

    def augmented(self, stmt):
        """``x += e`` is ``x = x + e``, unless ``x`` may be an array shared with another name
        that is read later: then ``+=`` would change that one too, so it is refused."""
        target = stmt.target
        mine = self.current.get(target.id)
        deferred, updates = len(self.root.deferred), len(self.root.argument_updates)
        sharing = self.sharing(target.id) if mine is not None and not self.trusted else []
        user = next((k for k in sharing if self._read_later(stmt, k)), None)
        if mine is not None and user is None and self.parent is not None and not self.trusted:
            param = self.caller_of(mine)  # a helper's parameter: the caller's value itself
            if param in self.passed_names:
                self.root.deferred.append((mine, self.with_calls(self.source.syntax_error(
                    f"`{target.id} {_AUG[type(stmt.op)]}= ...` on {param!r}, which holds the "
                    f"caller's {self.passed_names[param]!r}", stmt,
                    f"If they are arrays, `{_AUG[type(stmt.op)]}=` changes the caller's "
                    f"{self.passed_names[param]!r} too. Write `{target.id} = {target.id} "
                    f"{_AUG[type(stmt.op)]} ...` for a new value."))))
        owner = self.caller_of(mine) if mine is not None and user is None and \
            self.parent is None and not self.trusted else None
        if owner is not None:  # x += v on the argument x: the caller's array changes
            error = self.source.syntax_error(
                _update_of(target.id, owner), stmt,
                f"If it is an array, `{target.id} {_AUG[type(stmt.op)]}= ...` changes the "
                f"caller's value. Write `{target.id} = {target.id} {_AUG[type(stmt.op)]} ...` "
                "for a new value.")
            self.root.argument_updates.append((mine, owner, mine == owner, error))
        if mine is not None and user is not None:
            # on numbers `+=` makes a new value: refused later, once the kinds say an array
            self.root.deferred.append((mine, self.with_calls(self.source.syntax_error(
                f"`{target.id} {_AUG[type(stmt.op)]}= ...` on a value shared with {user!r}"
                f"{self._kept_by(user)}", stmt,
                f"If they are arrays, `{_AUG[type(stmt.op)]}=` changes {user!r} too. "
                f"Write `{target.id} = {target.id} {_AUG[type(stmt.op)]} ...` for a new value, "
                f"or copy first: `{target.id} = {target.id}.copy()`."))))
        if mine is not None:
            self._refuse_kept(stmt, target.id)
        outer = None if mine is None or self.trusted else self.enclosing_of(mine)
        if outer is not None:  # (a number: += makes a new one)
            self.root.deferred.append((mine, self.with_calls(self.source.syntax_error(
                _enclosed_update(target.id, outer, _AUG[type(stmt.op)]), stmt,
                _ENCLOSED_HINT.format(name=target.id)))))
        value = gast.copy_location(gast.BinOp(gast.Name(target.id, gast.Load(), None, None),
                                              stmt.op, stmt.value), stmt)
        value.augmented = True  # (on an object of a user's class: its __imul__ first, dunders)
        out, at, refusals = self.out, len(self.out), self.root.deferred[deferred:]
        self.statement(gast.copy_location(gast.Assign([target], value, None), stmt))
        if len(out) > at and not self.trusted:
            self.root.in_place.append((out[-1], None))
        if len(out) > at:  # (each may be a check at run time, before the update: a number)
            self.root.deferred[deferred:deferred + len(refusals)] = [
                (name, error, out[at]) for name, error in refusals]
            self.root.argument_updates[updates:] = [
                entry + (out[at],) for entry in self.root.argument_updates[updates:]]

    def _refuse_kept(self, stmt, name: str) -> None:
        """``def g(v, c=a)`` or ``g = partial(f, a)``, then ``a[0] = v`` (or ``a += v``),
        then ``g(x)``: Python evaluated the default once, and ``g`` keeps that array, so it
        reads the change; s2sad's copy of the default would not. Refused (once the kinds
        say the value kept is not a number) where ``g`` is read after the update."""
        if self.trusted:
            return
        blocks = self.node.get(self.current[name], frozenset())
        for holder, atom, shown in self.kept:
            if holder == name or not blocks & self.node.get(atom, frozenset()) or \
                    not self._read_later(stmt, holder):
                continue
            op = f"`{name} {_AUG[type(stmt.op)]}= ...`" if isinstance(stmt, gast.AugAssign) \
                else f"an in-place update of {name!r}"
            self.root.deferred.append((atom, self.with_calls(self.source.syntax_error(
                f"{op}, which shares its memory with {shown}", stmt,
                f"{holder}() keeps that array, so Python's call reads the update; s2sad "
                f"would read the value it had. Update a copy (`{name} = {name}.copy()` "
                f"first), or pass the value at the call."))))
            return

    def _list_slice_error(self, stmt, name: str):
        """``ys[1:] = [a, b]``, ``ys[::-1] = ys`` on a list: Python may change its length
        and copies an iterable of any kind first; s2sad refuses it at the line."""
        return self.source.syntax_error(
            f"an assignment to a slice of the list {name!r}", stmt,
            "It may change the list's length, and copies any iterable first. Build a new "
            f"list instead: `{name} = {name}[:i] + [...] + {name}[j:]`.")

    def _refuse_slot_update(self, stmt, name: str, item: str) -> None:
        """``ys[0] += v`` on a list (or dict) made here: Python runs ``item += v`` on the
        slot's value, so an array there (``ys = [z]``) changes in place, and ``z`` with it.
        Refused once the kinds say ``item`` is not a number, where another name that
        shares its memory is read later."""
        mine = self.current.get(name)
        if self.trusted or mine not in self.made or mine in self.unmade:
            return
        blocks = self.node.get(item, frozenset())
        others = sorted(k for k, v in self.current.items() if k != name and
                        blocks & self.node.get(v, frozenset()) and
                        not (k in self.temps and v in self.made))  # (a comprehension's list)
        user = next((k for k in others if self._read_later(stmt, k)), None)
        if user is None and (others or mine in self.repeated) and \
                self._read_later(stmt, name):
            user = name  # (ys = [z, z] or [h] * 2: another slot may hold the same array)
        if user is None:
            return
        op, slot = _AUG[type(stmt.op)], unparse(stmt.target).strip()
        shared = f"shared with {user!r}" if user != name else \
            f"that another slot of {name!r} may hold (it is shared)"
        self.root.deferred.append((item, self.with_calls(self.source.syntax_error(
            f"`{slot} {op}= ...` on a slot holding a value {shared}", stmt,
            f"If the slot holds an array, `{op}=` changes it in place, and {user!r} too. "
            f"Write `{slot} = {slot} {op} ...` for a new value, or put a copy in the slot "
            "(`.copy()`)."))))

    # --- which values may share memory -----------------------------------------------

    def _blocks_of(self, shares=(), new: bool = False) -> frozenset:
        blocks = set()
        for name in shares:
            blocks |= self.node.get(name, frozenset())
        if new or not blocks:
            self._blocks += 1
            blocks.add(self._blocks)
        return frozenset(blocks)

    def bind(self, name: str, shares=()) -> None:
        """``name`` holds a new value, sharing memory with the values of ``shares`` (a name
        given a new value no longer shares memory with what it held). In a nested ``def``,
        a value of the enclosing function's (``v = a[1:]``, ``a`` free) is noted in
        ``enclosed``: an update of it there changes that function's ``a``."""
        self.node[name] = self._blocks_of(shares)
        outer = next(filter(None, (self._not_owned(s) for s in shares if s not in self.node)),
                     None)
        if outer is not None:
            self._blocks += 1
            self.enclosed[self._blocks] = outer
            self.node[name] = self.node[name] | {self._blocks}

    def _not_owned(self, atom: str) -> str | None:
        """``atom`` as a message shows it where it is a value the function does not own:
        an enclosing function's variable (in a nested ``def``), or a module's array
        (``v = BUF[:2]``: ``v += w`` changes ``BUF``; a module's list or dict is followed
        as state the function changes, ``attributes``); else None."""
        scope = self
        while scope.lexical and scope.parent is not None:
            scope = scope.parent
            if atom in scope.node:
                user = next((k for k, v in scope.current.items() if v == atom), atom)
                return f"{user!r} of the enclosing function"
        if atom in self.locals or atom in self.temps:
            return None
        try:
            value = self.source.resolve(atom)
        except KeyError:
            return None
        return f"the module's {atom!r}" if isinstance(value, np.ndarray) else None

    def enclosing_of(self, name: str) -> str | None:
        """The value the function does not own whose memory ``name`` may share, as a
        message shows it (``_not_owned``), if any."""
        blocks = self.node.get(name, frozenset())
        return next((self.enclosed[b] for b in sorted(blocks) if b in self.enclosed), None)

    def bind_caller(self, name: str, argument: str) -> None:
        """``name`` holds the value the caller passed as ``argument``."""
        self.node[name] = self._blocks_of(new=True)
        self.callers[self._blocks] = argument

    def carry_back(self, child, passed: dict, represented: list, result,
                   helper: str) -> None:
        """What the inlined helper ``child`` made a value it was given hold: ``keep(kept,
        y)``, whose body runs ``lst.append(a)``, makes the caller's ``kept`` share ``y``'s
        memory, so a later ``y[1] = v`` is refused where ``kept`` is read, as after
        ``kept.append(y)`` written here. ``passed``: the child's blocks of the values given
        -> the caller's atoms; ``represented``: (the child's name of each, the caller's
        atom). A value the helper made and stored (``z = np.zeros(3); lst.append(z);
        return z``) gets a block of its own here, shared by the list and the result.

        Every caller's atom that may be the list given (its name, a name given it, a list
        holding it: each shares all its blocks) takes the new blocks too. That may say
        more values share memory than do (an item of the list), never fewer.
        """
        fresh: dict[int, int] = {}

        def here(theirs) -> frozenset:
            blocks = set()
            for b in theirs:
                if b in passed:
                    blocks |= self.node.get(passed[b], frozenset())
                    continue
                if b not in fresh:
                    self._blocks += 1
                    fresh[b] = self._blocks
                blocks.add(fresh[b])
            return frozenset(blocks)

        stored = self.__dict__.setdefault("stored_by", {})
        outer = child.__dict__.get("outer_stored", ())
        for theirs, atom in represented:
            before = self.node.get(atom)
            if not before or theirs not in child.node:
                continue
            # (a nested def's `l.append(y)`, y the enclosing function's: note_outer_stored)
            held_outer = [self.node.get(o, frozenset()) for n, o in outer if n == theirs]
            added = here(child.node[theirs]).union(*held_outer) - before
            if not added:
                continue
            grown = set()
            for name, blocks in list(self.node.items()):
                if before <= blocks:
                    self.node[name] = blocks | added
                    stored[name] = helper
                    grown.add(name)
            users = {k for k, v in self.current.items() if v in grown}
            for b in child.node[theirs]:  # (keep(kept, inner): inner.append(v) later
                held = passed.get(b)        # changes kept[0] too)
                if held not in (None, atom) and held in self.made and held not in self.unmade:
                    self.holders.setdefault(held, set()).update(users)
        if isinstance(result, gast.Name) and result.id in child.node and fresh:
            made = here(child.node[result.id]) & frozenset(fresh.values())
            if made:  # (the helper's own array, which it stored in a value given too)
                self.node[result.id] = self.node.get(result.id, frozenset()) | made

    def note_outer_stored(self, mine: str, names) -> None:
        """In a nested ``def`` (inlined where it is called), the enclosing function's values
        of ``names`` that the list or dict ``mine`` now holds: ``def g(l): l.append(y)``,
        ``y`` the enclosing one's, has no block for ``y`` here; ``carry_back`` gives ``l``'s
        caller value ``y``'s blocks there."""
        if self.lexical:
            self.__dict__.setdefault("outer_stored", []).extend(
                (mine, n) for n in names if n not in self.node)

    def _kept_by(self, name: str) -> str:
        """`` (keep() stored it there)`` where the value of the user's ``name`` was made to
        hold another's memory by an inlined helper of that name (``carry_back``), else ''."""
        helper = self.__dict__.get("stored_by", {}).get(self.current.get(name))
        return f" ({helper}() stored it there)" if helper else ""

    def hold(self, name: str, ssa: str, value) -> None:
        """Note which variables reach the same list as another: ``b = a`` (both),
        ``inner = outer[0]`` (inner's list is in outer), ``outer = [a, 1.0]`` or
        ``d = {"a": a}`` (a's list is in the display). An ``append`` to a list that
        another variable reaches is refused where that one is read later: the reverse
        sweep follows the list by its own name only."""
        def user(atom: str) -> str:
            return next((k for k, v in self.current.items() if v == atom), atom)
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                value.func.attr == "get" and isinstance(value.func.value, gast.Name) and \
                value.func.value.id in self.made:  # (d.get(k): as d[k])
            value = gast.Subscript(value.func.value, value.args[0] if value.args else
                                   gast.Constant(None, None), gast.Load())
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                value.func.attr in ("values", "items", "keys") and not value.args and \
                isinstance(value.func.value, gast.Name):
            value = value.func.value  # (d.values(): a view, which sees d change, as b = d)
            self.__dict__.setdefault("dict_views", {})[ssa] = value.id
        if isinstance(value, gast.Name) or isinstance(value, gast.Subscript) and \
                isinstance(value.value, gast.Name):
            # the names that still reach the list: a = b = [x] (both took the temporary's),
            # b = (a, 1.0)[0] or e = {"k": a}["k"] (the lists a display holds)
            source = value.id if isinstance(value, gast.Name) else value.value.id
            mine = user(source)
            item = isinstance(value, gast.Subscript) and \
                not isinstance(value.slice, gast.Slice)  # (xs[:-1]: a new list, not an item)
            others = sorted(k for k, v in self.current.items() if k not in (name, mine) and
                            mine in self.holders.get(v, ()) and (
                                k in self.holders.get(source, ()) or item))
            if isinstance(value, gast.Name):
                self.holders.setdefault(source, set()).add(name)
            self.holders.setdefault(ssa, set()).update([mine] + others)
            for other in others:
                self.holders.setdefault(self.current[other], set()).add(name)
        elif isinstance(value, (gast.List, gast.Tuple, gast.Dict)):
            for part in value.values if isinstance(value, gast.Dict) else value.elts:
                if isinstance(part, gast.Name):
                    self.holders.setdefault(part.id, set()).add(name)
                    seen = self.__dict__.get("dict_views", {}).get(part.id)
                    if seen is not None:  # ([d.values()]: the display reaches d too)
                        self.holders.setdefault(seen, set()).add(name)

    def caller_of(self, name: str) -> str | None:
        """The argument whose value ``name`` may share memory with, if any."""
        blocks = self.node.get(name, frozenset())
        return next((self.callers[b] for b in sorted(blocks) if b in self.callers), None)

    def sharing_any(self, atom: str) -> bool:
        """May the value of ``atom`` (a local or temporary) share memory with another?"""
        if atom not in self.node:
            return True
        blocks = self.node[atom]
        return any(b in self.callers for b in blocks) or any(
            blocks & other for name, other in self.node.items() if name != atom)

    def sharing(self, name: str) -> list[str]:
        """The other user variables whose values may share memory with ``name``'s."""
        blocks = self.node.get(self.current[name], frozenset())
        return sorted(k for k, v in self.current.items()
                      if k != name and blocks & self.node.get(v, frozenset()))

    def merge_nodes(self, other: dict) -> None:
        """After a branch (or a loop) either of two states may hold: a name may hold either
        value."""
        for name, theirs in other.items():
            self.node[name] = self.node.get(name, frozenset()) | theirs

    def _classes(self) -> frozenset:
        """Which user variables may share memory (with each other, with the caller)."""
        holders: dict[int, set] = {}
        for name, ssa in self.current.items():
            for b in self.node.get(ssa, ()):
                holders.setdefault(b, set()).add(name)
        return frozenset((frozenset(names), b in self.callers) for b, names in holders.items())

    def views(self, value) -> list[str]:
        """The local names whose memory the (normalized) ``value`` may share: the value
        itself, an item or slice of it, a view (``.T``, ``.reshape``, ``np.asarray``...),
        a list or tuple holding it, what a call returns where its facts say it may be an
        argument (``x.conj()``, ``d.get(k)``) or where it has no facts (any argument)."""
        if isinstance(value, gast.Name):
            return [value.id]
        if isinstance(value, gast.Subscript):
            if value.__dict__.get("walked") and isinstance(value.value, gast.Name) and \
                    value.value.id in self.keyed:
                return []  # (for k in d, d a dict made here: k is a key, hashable, no array)
            if self._advanced_index(value.slice) and self._array_known(value.value):
                return []  # (x[[0, 2]], x[idx, 0], idx = np.arange(n): NumPy copies)
            return self.views(value.value)
        if isinstance(value, gast.Attribute):
            if not (isinstance(value.value, gast.Name) and value.value.id in self.node):
                return []  # (np.pi, a module's constant)
            found = self._method_facts(value.attr)  # x.T, x.real: views; x.shape: not;
            # (x.fill: a bound method holding x, which it changes; x.data, a memoryview
            # of x's buffer; h.data of an object: what h holds. Numbers, tuples and dtypes
            # share nothing: x.shape, x.size, x.strides)
            return [] if found is not None and (found.no_derivative or value.attr in (
                "itemsize", "nbytes", "strides")) and not found.returns_view_of and \
                not found.mutates else self.views(value.value)
        if isinstance(value, (gast.Tuple, gast.List)):
            return [n for elt in value.elts for n in self.views(elt)]
        if isinstance(value, gast.Dict):
            return [n for v in value.values for n in self.views(v)]
        if isinstance(value, gast.IfExp):
            return self.views(value.body) + self.views(value.orelse)
        if self.joins_containers(value):
            # [a] * 2, [a] + ys, t_1 * 2 (t_1 = [a] or (a,)), t_1 + t_2 + ys[0:] (of
            # ys.insert(0, a)), d | {"b": v}: a list, tuple or dict holding what they hold
            return [n for part in _joined(value) for n in self.views(part)]
        if self._container_copy(value) is not None:  # d.copy(): the same items as d
            return [self._container_copy(value)]
        if isinstance(value, gast.Call):
            found, args = self._call_facts(value)
            if found is None:  # not known: it may return any argument, or a view of one
                return [n for a in args + [k.value for k in value.keywords]
                        for n in self.views(a)]
            # x.astype(t, copy=False), np.array(x, copy=None): x itself where no copy is needed
            as_view = bool(found.uncopied_view_of) and \
                uncopied(value, self._callee(value.func))  # (np.nan_to_num(x, False))
            if found.returns_view_of == "*":
                return [n for a in args + [k.value for k in value.keywords]
                        for n in self.views(a)]
            positions = set(found.returns_view_of) | (
                set(found.uncopied_view_of) if as_view else set())
            return [n for i, a in enumerate(args) if i in positions for n in self.views(a)]
        return []

    def joins_containers(self, value) -> bool:
        """Is ``value`` a chain of ``+``, ``*`` or ``|`` with a list, tuple or dict among
        its parts: a display, a name given one, or given such a chain (``t_1 = xs * 2``)?
        Its value holds what those hold."""
        found = self.root.__dict__
        return isinstance(value, gast.BinOp) and any(
            isinstance(part, (gast.List, gast.Tuple, gast.Dict)) or
            isinstance(part, gast.Name) and (
                part.id in self.made or part.id in found.get("_star_displays", {}) or
                part.id in found.get("_joined_containers", ())) for part in _joined(value))

    def note_joined(self, name: str, value) -> None:
        """Note that ``name`` (a temporary, or a version of a variable) holds a chain
        :meth:`joins_containers` finds (``t_1 = xs * 2``), for a chain that reads it."""
        if self.joins_containers(value):
            self.root.__dict__.setdefault("_joined_containers", set()).add(name)

    def _advanced_index(self, index) -> bool:
        """Is the (normalized) ``index`` one NumPy reads as advanced indexing, whose result
        is a copy: a list, an index array (its function's ``index_array`` fact:
        ``x[[0, 2]]``, ``x[idx]`` with ``idx = np.arange(3)``), or a tuple holding one
        (``x[idx, 0]``)?
        A list or a dict given a list raises (unhashable), so no item is shared there."""
        if isinstance(index, gast.Tuple):
            return any(self._advanced_index(part) for part in index.elts)
        return isinstance(index, gast.List) or isinstance(index, gast.Name) and \
            index.id in self.__dict__.get("index_arrays", ())

    def _array_known(self, node) -> bool:
        """Is ``node`` (an atom) known to hold a NumPy array, not an object of the user's
        whose ``__getitem__`` may return anything (an argument array, ``x * 2``...)?"""
        from .star_args import _known_array
        return _known_array(self, node)

    def note_index_array(self, name: str, value) -> None:
        """Note whether ``name`` (a temporary or a name given its value once) holds a list
        or an index array made here, which indexes an array as a copy (``_advanced_index``).
        A name of a loop or a branch (kept under one name) is never noted."""
        found = self.__dict__.setdefault("index_arrays", set())
        listed = isinstance(value, gast.List) or isinstance(value, gast.Name) and \
            value.id in found and value.id in self.temps
        if isinstance(value, gast.Call) and value.args and not value.keywords:
            callee = self._callee(value.func)
            try:
                kind = getattr(registry.facts(callee), "index_array", "")
            except TypeError:  # (unhashable)
                kind = ""
            first = value.args[0]
            listed = kind == "always" or kind == "of a list" and (  # np.array([0, 2])
                isinstance(first, gast.List) or isinstance(first, gast.Name) and
                first.id in found and first.id not in self.carried)
        if listed and name not in self.carried:
            found.add(name)
        else:
            found.discard(name)

    def _container_copy(self, value) -> str | None:
        """``d`` of ``d.copy()`` (normalized) where ``d`` holds a dict or list made here, or
        given as the function's argument: its copy is a new one holding the same items."""
        if not (isinstance(value, gast.Call) and value.__dict__.get("copied") and
                value.args and isinstance(value.args[0], gast.Name)):
            return None
        name = value.args[0].id
        given = self.root.descriptors.get(name) if self.parent is None else None
        if name in self.made and name not in self.unmade or \
                type(given) is tuple and given[0] in ("dict", "list"):
            return name
        return None

    def _call_facts(self, call) -> tuple:
        """``(facts, arguments)`` of a normalized call: the :class:`registry.Facts` of
        its function (None where not known), and its positional arguments, a method's
        receiver first (``x.fill(v)``: ``[x, v]``). A method desugared into a NumPy
        function (``x.conj()``, ``np.conj(x)``) has the facts of both."""
        func, args = call.func, list(call.args)
        callee = self._callee(func)  # (a module's object's method: model.act, np.cos)
        if callee is None and isinstance(func, gast.Attribute) and \
                isinstance(func.value, gast.Name) and \
                func.value.id in self.node:  # a method of a local value: x.reshape(3)
            found = self._method_facts(func.attr)
            args = [func.value] + args
        elif isinstance(func, gast.Name) and func.id in self.function_args and \
                self.function_args[func.id][0] == "call":
            found = registry.facts(self._callee(self.function_args[func.id][1]))
        else:
            found = registry.facts(callee)
        method = registry.facts(call.__dict__.get("method"))
        if found is not None and method is not None:  # (the method's own views too)
            found = found.union(method)
        return found, args

    def _note_unknown_call(self, call) -> None:
        """A call of a function without facts (no rule, not inlined, not known to change
        nothing): it may change what it is given in place, or keep it. Refused (once the
        activity is known: ``unknown_calls``) where it is given a mutable value, or a
        container holding one, that shares memory with a value the gradient follows."""
        found, args = self._call_facts(call)
        lazy = found is not None and any(p < len(args) and not self._known_function(args[p])
                                         for p in found.calls)
        if lazy:  # (map(f, [z]) with f not known: f(z) may change z, when map is read)
            found = None
        if found is not None:
            return
        if isinstance(call.func, gast.Attribute) and args and args[0] is call.func.value:
            args = args[1:] + args[:1]  # (the receiver last: refused for what it is given)
        given = [a for a in args + [k.value for k in call.keywords]
                 if isinstance(a, gast.Name) and a.id in self.node]
        if isinstance(call.func, gast.Name) and call.func.id in self.node:
            held = call.func.id  # (fill = z.fill; fill(1.0): the method holds z)
            shown = self.namer.users.get(held, held)
            said = f"{shown}(...), which calls a value held by a variable that reaches a " \
                f"value the gradient follows (a bound method: `{shown} = z.fill`)"
            if held in self.namer.temporaries:  # (key=operator.methodcaller("sum"): no
                said = ("a function computed on this line (operator.methodcaller(...), "  # name)
                        "a bound method) is called, and it reaches a value the gradient "
                        "follows")
            self.root.unknown_calls.append((
                {held} | {n for n, o in self.node.items() if o & self.node[held]},
                self.with_calls(self.source.error(
                    NoDerivativeError, f"{said}; s2sad does not know whether it changes that "
                    "value in place", call, "Call the method on the value itself "
                    "(`z.fill(v)` is refused or followed where s2sad knows what it does), or "
                    "pass a function s2sad knows (key=np.sum, a def of yours).")))
                )
        if not given:
            return
        dotted = self._dotted(call.func) if not isinstance(call.func, gast.Name) or \
            call.func.id not in self.namer.temporaries else "this function"
        root = call.func
        while isinstance(root, gast.Attribute):
            root = root.value
        if isinstance(root, gast.Name) and root.id in self.namer.users and \
                dotted.startswith(root.id + "."):  # (n_1.upper: the user's n.upper)
            dotted = self.namer.users[root.id] + dotted[len(root.id):]
        if isinstance(call.func, gast.Attribute) and isinstance(root, gast.Name) and \
                root.id in self.namer.temporaries:  # (random.Random(0).shuffle: a value made
            dotted = f".{call.func.attr}"          # on the line, not the user's name)
        for arg in given:
            reached = {arg.id} | {name for name, other in self.node.items()
                                  if other & self.node[arg.id]}
            shown = self.namer.users.get(arg.id, arg.id)
            what = repr(shown)
            if arg.id in self.namer.temporaries or not self._on_line(shown, call):
                # ([z]: a display holding z; sorted's key called on each item, `_item`)
                held = sorted(self.namer.users.get(n, n) for n in reached
                              if n in self.current.values() and
                              self._on_line(self.namer.users.get(n, n), call))
                shown = held[0] if held else "x"
                what = "a value computed on this line" + (f" that holds {shown!r}"
                                                         if held else "")
            computed = dotted == "this function"  # (key=operator.methodcaller("sum"))
            called = "a function computed on this line" if computed else f"{dotted}(...)"
            copied = f"{shown}.copy()" if computed else f"{dotted}({shown}.copy(), ...)"
            self.root.unknown_calls.append((reached, self.with_calls(self.source.error(
                NoDerivativeError,
                f"{called} is given {what}, which the gradient follows; s2sad has no "
                f"rule for {'it' if computed else dotted} and does not know whether it "
                "changes its arguments in place or returns one of them" if not lazy else
                f"{called} is given {what}, which the gradient follows, and a function "
                f"it calls on the items that s2sad has no rule for: it may change an item "
                "in place", call,
                f"Give it a copy ({copied}) if its result needs no "
                "gradient, compute the value with NumPy functions s2sad knows, or register a rule for it with @s2sad.defvjp "
                "(a function with a rule is taken to change none of its arguments).")),
                *(() if lazy else (call,))))  # (its result needing no gradient: checked
            # when it runs instead; not map's, which calls f only when it is read)

    def _on_line(self, name: str, node) -> bool:
        """Is ``name`` written on the user's line of ``node`` (a name the user sees there,
        not one s2sad gave a value it wrote out)?"""
        lineno = getattr(node, "lineno", None)
        lines = self.source.lines
        if not lineno or lineno > len(lines):
            return True
        return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", lines[lineno - 1]) is not None

    def _known_function(self, func) -> bool:
        """Is ``func``, given to a function that calls it (``map``), one whose facts are
        known, or the user's own (a function argument, a local function)?"""
        if not isinstance(func, (gast.Name, gast.Attribute)):
            return True  # (a constant: calling it fails as Python's call does)
        if isinstance(func, gast.Name) and (func.id in self.function_args or
                                            func.id in self.local_functions):
            return True
        return registry.facts(self._callee(func)) is not None

    @staticmethod
    def _method_facts(attr: str):
        """What a method (or attribute) of that name does, on any value a local name may
        hold (an array, a list, a dict, a tuple): their facts together; None where one of
        them has it without facts, or none has it (an object's own method)."""
        found = None
        for kind in _RECEIVERS:
            method = kind.__dict__.get(attr) if attr.startswith("__") else \
                getattr(kind, attr, None)
            if method is None:
                continue
            facts = registry.facts(method)
            if facts is None:
                return None
            found = facts if found is None else found.union(facts)
        return found

    def _closure_reader(self, stmt, name: str) -> str | None:
        """The nested ``def`` or lambda whose call after ``stmt`` reads ``name``, where
        nothing else reads it later; else None."""
        body = self.source.tree.body
        later = body[body.index(stmt) + 1:] if stmt in body else body
        loads = {n.id for s in later if s is not stmt for n in trees.walk(s)
                 if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        if name in loads or not self._read_later(stmt, name):
            return None
        return next((holder for holder, reads in sorted(self._closures[1].items())
                     if name in reads and self._read_later(stmt, holder)), None)

    def _read_later(self, stmt, name: str, _seen: tuple = ()) -> bool:
        """Is ``name`` read after ``stmt``? (Anywhere, for a statement inside a block.) A
        call of a nested ``def`` or lambda reads what its body reads, as it is then: ``def
        g(): return a.sum()`` before ``v = a[1:]; v[0] = w``, then ``g()``, reads ``a``."""
        body = self.source.tree.body
        later = body[body.index(stmt) + 1:] if stmt in body else body
        if any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for s in later for n in trees.walk(s) if s is not stmt):
            return True
        tree = self.source.tree
        if self.__dict__.get("_closures", (None,))[0] is not tree:  # (once a function)
            self._closures = (tree, _closure_reads(tree))
        return any(name in reads and holder not in _seen and
                   self._read_later(stmt, holder, _seen + (holder,))
                   for holder, reads in self._closures[1].items())
