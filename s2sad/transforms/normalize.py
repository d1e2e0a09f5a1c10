"""Normalize into single assignments: one operation per statement, on names and constants.

Nested expressions are split into ``t_1, t_2, ...`` temporaries; a reassigned
variable gets a new name (``x`` -> ``x_1``), so every name is assigned exactly
once and keeps its value for the reverse sweep. Chains of ``+`` and ``-`` stay
on one line, as in the seed's ``t_s = t_abc + t_abd + t_acd + t_bcd``. The
returned expression is named ``ret``.

>>> import gast
>>> from s2sad.names import Namer
>>> from s2sad.source import FunctionSource
>>> from s2sad.codegen import unparse
>>> import numpy as np
>>> text = "def f(x, w):\\n    x = np.sin(x * w) + w\\n    return 2.0 * x"
>>> tree = gast.parse(text).body[0]
>>> src = FunctionSource(None, tree, "demo.py", text.splitlines(True), {"np": np})
>>> print(unparse(Normalize(src, Namer.for_tree(tree)).run()))
def f(x, w):
    t_1 = x * w
    t_2 = np.sin(t_1)
    x_1 = t_2 + w
    ret = 2.0 * x_1
    return ret

``Normalize`` does six jobs, one module each, composed here as mixin classes:

- :mod:`.single_assignment`: expressions into atoms, names into versions (def-use);
- :mod:`.inlining`: the user's functions inlined where they are called;
- :mod:`.objects`: the user's objects, their methods and namedtuples;
- :mod:`.aliasing`: which names may share memory, and unsafe updates refused;
- :mod:`.loops`: loops walked by index or unrolled, their sharing found to a fixed point;
- :mod:`.folding`: tests on constants decided (an inlined helper's ``if left is None``).

This module holds what they share: the state (``__init__``, each field documented where it is
made) and the dispatch of a statement to the job that handles it (``statement``).
"""

from __future__ import annotations


import gast

from .. import trees
from ..names import Namer
from ..source import FunctionSource
from ..trees import clone, start_names
from .higher import is_generated
from .aliasing import Aliasing
from .attributes import stored_effect
from .folding import Folding
from .frozen import freeze
from .function_values import bind_function, bind_items, merge_branches, unrolled_functions
from .partials import held as held_partial
from .nested_gradients import held_derivative
from .star_args import starred_assignment
from .sort_keys import held_getter
from .container_updates import items_walked_by_key, rebuilt, written_out
from .inlining import Inlining
from .loops import Loops
from .objects import Objects, argument_descriptors, argument_objects  # noqa: F401
from .single_assignment import (SingleAssignment, _Rename, _is_append, _static,  # noqa: F401
                                _user_code, assigned_names, carried_names, is_atom,
                                is_linear_chain)


class Normalize(SingleAssignment, Inlining, Objects, Aliasing, Loops, Folding):
    """One function normalized into single assignments (see the module's docstring).

    The state below is shared by the six job mixins; ``statement`` dispatches each of the
    user's statements to the job that handles it. An inlined function gets a child
    ``Normalize`` (``parent`` set) that shares the ``root``'s tables.
    """

    def __init__(self, source: FunctionSource, namer: Namer, parent: "Normalize | None" = None,
                 lexical: bool = False, numpy_name: str = "np"):
        self.numpy_name = numpy_name
        self.source = source
        self.namer = namer
        self.parent = parent              # the caller this function is inlined into
        self.lexical = lexical            # a nested def: free names are the caller's locals
        self.root = parent.root if parent else self
        self.anchor = parent.anchor_stmt() if parent else None
        self.inlining = (parent.inlining if parent else ()) + (source.func,)  # for recursion
        # (root) the call graph the inlining walks: each function's key (``inlining``) ->
        # the keys of those it inlines or calls recursively, in order (.call_cycles)
        self.called: dict = {}
        # (root) each statement emitted and the inlining's stack it was made under: a
        # change to state is refused where a recursion makes it again (.call_cycles)
        self.emitted: list[tuple] = []
        self.local_functions: dict[str, gast.FunctionDef] = {}
        # a parameter that the caller passed a function: ("inline", what callee() gives)
        # for the user's own (inlined where it is called), ("call", the caller's
        # expression) for one with a derivative rule (np.sin)
        self.function_args: dict[str, tuple] = {}
        self.nesting = 0  # blocks (of an `if` or a loop) around the statement normalized
        self.constants: dict = {}  # an inlined helper's read-only parameters given constants
        self.passed_names: dict[str, str] = {}  # a parameter -> the caller's variable given
        # (root) a variable holding an object of a user's class, whose methods are inlined:
        # ("param", path, class, names its own attributes hide, its members' descriptions)
        # for an argument or an object in its attributes (path "model" or "model.layer"),
        # ("value", object) for a module's object
        self.objects: dict[str, tuple] = {}
        self.descriptors: dict = {}  # (root) argument_descriptors
        self.foreign: dict[str, tuple] = {}   # alias -> (globals dict, name) of inlined code
        self.foreign_cells: dict = {}         # alias -> closure cell of inlined code
        # (the root's: made at the start of its pass, as the tree was found)
        self.locals = start_names(source.tree) if parent is None else \
            assigned_names(source.tree)
        self.current: dict[str, str] = {}
        # Which values may share memory (for refusing unsafe in-place updates): each local
        # name -> the memory blocks (numbers) its value may use; two names may share memory
        # when their sets meet.
        self.node: dict[str, frozenset] = {}
        self.holders: dict[str, set] = {}  # a value (its name) -> variables reaching it too
        # (function, atom, shown): a nested def's default or a partial's bound argument,
        # evaluated where it is made and kept by the function (an array: its memory)
        self.kept: list[tuple[str, str, str]] = []
        # names given a list or dict display ([...], {...}, [None] * n), and names given
        # anything else: a slot of a list or dict the function made changes only that
        self.made: set[str] = set()
        self.unmade: set[str] = set()
        self.repeated: set[str] = set()  # lists that may hold one value in two slots
        # dicts made here (a display, a comprehension) and their d.keys(): a loop over
        # one gives its keys, which hold no array (for k in d: k shares no memory)
        self.keyed: set[str] = set()
        self._blocks = 0
        self.callers: dict[int, str] = {}  # blocks the caller passed in -> argument
        self.enclosed: dict[int, str] = {}  # (a nested def) blocks of the enclosing values
        # code s2sad generated (differentiated again) updates only what it made itself
        self.trusted = is_generated(source) or (parent is not None and parent.trusted)
        # (name, error): `x += e` on a shared value, an error unless x is a number; (name,
        # error, statement): or checked a number at run time before that statement
        self.deferred: list[tuple] = []
        # (names, error): a call of a function s2sad does not know given a value that
        # may share memory with these names; an error where one is active and not a number
        self.unknown_calls: list[tuple[set, Exception]] = []
        # (name, error): `ys[1:] = v`, an error where the kinds say ys is a list
        self.list_slices: list[tuple[str, Exception]] = []
        # (name, owner, is the argument itself, error[, the update's first statement]):
        # `x += e` on a value sharing the caller's memory, an error where x is an array
        # (or is the argument's own list or dict); checked at run time where x may be a number
        self.argument_updates: list[tuple] = []
        # (statement, array): the statements `x = x + e` that stand for `x += e` (or for
        # `y[i] += e`, the array y; else None): on an array, NumPy's in-place update keeps
        # x's dtype and shape, or raises (checked where the kinds cannot say)
        self.in_place: list = []
        self.temps: set[str] = set()  # name -> the local it may share memory with
        self.out: list = []
        self.stmt = None
        # an inlined function: the user's lines that called it (file, line, text, column,
        # function), outermost first, and whether its own lines are shown in errors (not
        # s2sad's stand-ins or generated code)
        self.calls: tuple = ()
        # (s2sad.spread's flat function of one with *args: its line is not the user's)
        self.shown = getattr(source.func, "__s2sad_spread__", None) is None
        self.walking: dict = {}  # a loop (its id) -> its variables known as every item
        # a variable given a frozen distribution (d = norm(mu, s)), by version: (the function
        # called, its arguments and keywords as atoms, the block and its depth), see .frozen
        self.frozen: dict[str, tuple] = {}
        # variables assigned inside `if`/`for`/`while` keep one name; the adjoint saves
        # and restores their overwritten values instead of renaming them
        self.carried = carried_names(source.tree)

    def run(self) -> gast.FunctionDef:
        tree = self.source.tree
        args = tree.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            self.current[arg.id] = arg.id
            self.bind_caller(arg.id, arg.id)
        for stmt in tree.body:
            self.stmt = stmt
            self.statement(stmt)
        new = gast.FunctionDef(tree.name, args, self.out, [], None, None)
        return gast.copy_location(new, tree)

    # --- statements -----------------------------------------------------------------

    def emit(self, stmt):
        located = gast.copy_location(stmt, self.anchor or self.stmt)
        if self.trusted:  # (s2sad's own code, inlined: its tape's pops give back what the
            located.s2sad_wrote = True  # same name pushed, the analyses may read)
        if self.calls or self.__dict__.get("from_spread"):  # (inlined: an error in it
            # names its own line, and the calls)
            located.origin = self.frames()
        self.out.append(located)
        self.root.emitted.append((located, self.inlining))

    def statements(self, block):
        """Normalize each statement of ``block`` in turn (``self.stmt``: the one under way)."""
        for inner in block:
            self.stmt = inner
            self.statement(inner)

    def _computed_now(self, value):
        """``value`` computed here, as a name or constant read again later."""
        if isinstance(value, (gast.Constant, gast.Name)):
            return value
        from .star_args import _read
        return _read(self, self.atom(value))

    def _new_local(self, base: str) -> str | None:
        """A new variable of the function (None where ``list`` is not the builtin: a
        local or a module's name of that name)."""
        if "list" in self.locals or not self.source.is_builtin("list"):
            return None
        name = self.namer.claim(base)
        self.locals.add(name)
        self.carried.add(name)
        return name

    def statement(self, stmt):
        if isinstance(stmt, gast.FunctionDef):
            self.local_functions[stmt.name] = self._defined_here(stmt)
            return
        steps = written_out(stmt, self._computed_now, self.source.tree, self._new_local)
        if steps is not None:  # xs.extend([a, b]), d.update(...): appends, stores by key
            for step in steps:
                self.statement(step)
            return
        walked = items_walked_by_key(self, stmt)  # for k, v in d.items(): for k in d, v = d[k]
        if walked is not None:
            return self.statement(walked)
        steps = None if self.trusted else rebuilt(self, stmt)  # xs.pop(i), xs.insert(i, v),
        if steps is not None:                                    # d.setdefault(k, v)
            for step in steps:
                self.statement(step)
            return
        unstarred = starred_assignment(self, stmt)  # a, *rest = xs: a, rest = xs[0], [...]
        if unstarred is not None:
            return self.statement(unstarred)
        if not self.trusted and stored_effect(self, stmt):
            return  # self.n_calls += 1; self.cache.append(X): run in the forward sweep
        if not self.trusted and isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr,
                                                  gast.Return)):
            self._refuse_hidden_updates(stmt)
            self._refuse_missing_attributes(stmt)
            self._refuse_object_changes(stmt)
        if not self.trusted and isinstance(stmt, (gast.If, gast.While, gast.For)):
            self._refuse_object_changes(stmt, [stmt.iter] if isinstance(stmt, gast.For)
                                        else [stmt.test])
        getter = held_getter(self, stmt)  # key = operator.itemgetter(1): the lambda it is
        if getter is not None:
            stmt = getter
        if bind_function(self, stmt, _static) or bind_items(self, stmt, _static):
            return  # fn = np.max if c else np.mean; pi, tanh = ...; acts = [np.tanh, f]
        if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda) and \
                len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name):
            lam = stmt.value
            ret = gast.copy_location(gast.Return(lam.body), lam)
            fdef = gast.FunctionDef(stmt.targets[0].id, lam.args, [ret], [], None, None)
            fdef.shown_name = "<lambda>"
            self.local_functions[stmt.targets[0].id] = self._defined_here(
                gast.copy_location(fdef, lam))
            return
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
            target = stmt.targets[0]
            index = self.index(target.slice)
            value = self.atom(stmt.value)  # (evaluated once, as Python does: y[0] = y[1] = e)
            self.setitem(stmt, target, index, value)
            for extra in stmt.targets[1:]:
                self.assign(extra, value)
            return
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Subscript):
            target = stmt.target
            index = self.index(target.slice)
            base = self.name(target.value)
            old = self.to_atom(gast.Subscript(base, clone(index), gast.Load()))
            self._refuse_slot_update(stmt, target.value.id, old.id)
            new = self.to_atom(gast.BinOp(old, stmt.op, self.atom(stmt.value)))
            if not self.trusted and self.out:  # (y[i] += e on an array: NumPy's dtype, shape)
                self.root.in_place.append((self.out[-1], base.id))
            self.setitem(stmt, target, index, new)
            return
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name) \
                and stmt.value.id in self.function_args:  # g = f, f a function passed in:
            self.function_args[stmt.targets[0].id] = self.function_args[stmt.value.id]
            return  # g stands for it too
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and not self.nesting and \
                isinstance(stmt.value, (gast.Name, gast.Attribute)) and \
                self._given_once(stmt.targets[0].id):
            function = self._function_argument(stmt.value)
            if function is not None:  # `act = np.tanh` (not in a branch or a loop): act(x)
                self.function_args[stmt.targets[0].id] = function  # is np.tanh(x)
                return
        if held_partial(self, stmt, _static, _user_code):  # g = functools.partial(f, a): g(x) is f(a, x)
            return
        if held_derivative(self, stmt, _static):  # g = s2sad.grad(inner); y, push = s2sad.jvp(f)(x)
            return
        if freeze(self, stmt, _static):  # d = norm(mu, s): its calls d.logpdf(x) written out
            return
        if isinstance(stmt, gast.Assign):
            if isinstance(stmt.targets[-1], (gast.Tuple, gast.List)) and \
                    isinstance(stmt.value, gast.Call):  # a, b = zip(*pairs): its tuples, if
                stmt.value.unpacked = True            # the lengths are known (.star_args)
            ref = self._object_ref(stmt.value) if len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], gast.Name) else None  # (layers = self.layers: known too)
            refs = [self._object_ref(v) for v in stmt.value.elts] if len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], (gast.Tuple, gast.List)) and isinstance(
                    stmt.value, (gast.Tuple, gast.List)) and \
                len(stmt.value.elts) == len(stmt.targets[0].elts) else []
            value = self.simple(stmt.value)
            if len(stmt.targets) > 1:
                value = self.to_atom(value)
            for target in stmt.targets:
                self.assign(target, value)
            if ref is not None and ref[0] != "module":
                self.root.objects[self.current[stmt.targets[0].id]] = ref
            self._named_parts(stmt, refs)
        elif isinstance(stmt, gast.AugAssign):
            self.augmented(stmt)
        elif _is_append(stmt) and stmt.value.func.value.id in self.locals:
            name = stmt.value.func.value.id
            mine = self.name(stmt.value.func.value)
            item = self.atom(stmt.value.args[0])
            func = gast.Attribute(mine, "append", gast.Load())
            self.emit(gast.Expr(gast.Call(func, [item], [])))
            self.carried.add(name)
            if mine.id in self.node:  # the list now holds (and shares memory with) the item
                self.node[mine.id] = self._blocks_of([mine.id] + self.views(item))
                self.note_outer_stored(mine.id, self.views(item))
            if isinstance(item, gast.Name) and item.id in self.made and \
                    item.id not in self.unmade:  # (a list in a list: inner.append(v) later
                self.holders.setdefault(item.id, set()).add(name)  # changes kept[0] too)
        elif isinstance(stmt, gast.Expr):
            if isinstance(stmt.value, gast.Constant):
                return  # docstring or a bare constant
            value = self.simple(stmt.value)
            if not isinstance(value, gast.Constant):  # (a helper's `return None`: nothing)
                self.emit(gast.Expr(value))
        elif isinstance(stmt, gast.Return):
            value = stmt.value
            if isinstance(value, gast.Name) and value.id in self.locals and \
                    value.id not in self.carried:
                self.emit(gast.Return(self.atom(value)))
                return
            name = self.namer.claim("ret")
            self.emit(gast.Assign([self.store(name)], self.simple(value), None))
            self.emit(gast.Return(self.load(name)))
        elif isinstance(stmt, gast.Pass):
            return
        elif isinstance(stmt, gast.Break):
            self.emit(gast.Break())
        elif isinstance(stmt, gast.Raise):  # (run in the forward sweep; no derivative)
            self.emit(gast.Raise(*(self.atom(e) if e is not None else None
                                   for e in (stmt.exc, stmt.cause))))
        elif isinstance(stmt, gast.If) and stmt.__dict__.get("returned") is not None and \
                stmt.returned not in self.current:
            # `if returned_1: return result_1` after a loop whose `return` (it sets both)
            # was in a branch left out (`if early:` in a helper given early=False)
            self.statements(stmt.orelse)
        elif isinstance(stmt, gast.If) and self._constant_test(stmt.test) is not None:
            # `if left is not None:` in an inlined helper given left=-1.0: the branch taken
            self.statements(stmt.body if self._constant_test(stmt.test) else stmt.orelse)
        elif isinstance(stmt, gast.If):
            if any(isinstance(n, (gast.ListComp, gast.GeneratorExp)) for n in trees.walk(
                    stmt.test)):  # (`if any(v > 0 for v in x)`: its loop written first)
                cond = self.condition(self.simple(stmt.test), normalized=True)
            else:
                cond = self.condition(stmt.test)
            start, functions = dict(self.node), dict(self.function_args)
            body = self.block(stmt.body)
            after_body, self.node = self.node, start
            chosen, self.function_args = self.function_args, functions
            orelse = self.block(stmt.orelse)
            self.merge_nodes(after_body)  # either branch may have run
            merge_branches(self, cond, chosen, stmt)  # (fn = np.sum in one, np.mean in the other)
            self.emit(gast.If(cond, body, orelse))
            self._forget_objects(stmt)
        elif isinstance(stmt, gast.While):
            def run():
                self.refuse_changing_calls(stmt.test)
                test = _Rename(self).visit(clone(stmt.test))
                self.emit(gast.While(test, self.block(stmt.body), []))
            self.looping(stmt, run)
            self.statements(stmt.orelse)  # no `break`: the `else` block always runs
        elif isinstance(stmt, gast.For) and (self.unrolled_map(stmt) or  # (a dict of objects)
                                             self.unrolled(stmt := self.over_objects(stmt)) or
                                             unrolled_functions(self, stmt, _static) or
                                             self.unrolled_by_index(stmt)):
            pass
        elif isinstance(stmt, gast.For):
            self.looping(stmt, lambda: self.loop(stmt))
            stored = {n.id for s in stmt.body for n in trees.walk(s)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            for name, ref in self.walking.pop(id(stmt), {}).items():
                if name not in stored and ref is not None:  # (after the loop, the variable
                    self.root.objects[self.current[name]] = ref  # is still one of them)
        else:  # Validate lets nothing else through
            raise self.source.syntax_error(type(stmt).__name__, stmt)

    def block(self, stmts) -> list:
        """Normalize a nested block of statements into its own list."""
        saved, saved_stmt = self.out, self.stmt
        self.out = []
        self.nesting += 1
        try:
            for stmt in stmts:
                self.stmt = stmt
                self.statement(stmt)
        finally:
            self.nesting -= 1
        body, self.out, self.stmt = self.out, saved, saved_stmt
        return body

    @staticmethod
    def _dotted(func) -> str:
        if isinstance(func, gast.Attribute):
            return f"{Normalize._dotted(func.value)}.{func.attr}"
        return func.id if isinstance(func, gast.Name) else "..."
