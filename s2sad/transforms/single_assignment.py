"""Single assignment: ``x = np.sin(x * w) + w`` becomes ``t_1 = x * w``, ``t_2 = np.sin(t_1)``,
``x_1 = t_2 + w``.

Each nested expression gets a ``t_*`` temporary, and a reassigned variable a new version
(``x`` -> ``x_1``). So every name is defined once, and the reverse sweep finds each use's one
definition (its def-use chain) with the value it had. Chains of ``+`` and ``-`` stay on one
line. The methods here are the part of :class:`~s2sad.transforms.normalize.Normalize` that
turns expressions into atoms (``simple``, ``atom``, ``to_atom``) and binds names (``assign``).

This module also holds the read-only facts the other normalize modules share: the names a
function assigns (``assigned_names``), what is an atom, the value of a constant, and what a
name resolves to where the function is defined (``_static``).
"""

from __future__ import annotations

import gast
import numpy as np

from .. import registry, trees
from ..codegen import unparse
from ..errors import DifferentiationError
from ..source import iterator, iterator_refusal, note_attribute, note_type, user_code as _user_code, \
    walked_by_key
from ..trees import assigned_names, clone
from .frozen import unfrozen
from .kinds import integer_member


def carried_names(tree) -> set[str]:
    """Variables assigned inside an ``if``, ``for`` or ``while`` (including loop targets)."""
    names = set()
    for node in trees.walk(tree):
        if isinstance(node, (gast.If, gast.For, gast.While)):
            for inner in trees.walk(node):
                if isinstance(inner, gast.Name) and isinstance(inner.ctx, gast.Store):
                    names.add(inner.id)
        if _is_append(node):  # ys.append(v) changes ys in place
            names.add(node.value.func.value.id)
        rebuilt = node.value if isinstance(node, (gast.Expr, gast.Assign)) else None
        if isinstance(rebuilt, gast.Call) and isinstance(rebuilt.func, gast.Attribute) and \
                rebuilt.func.attr in ("pop", "insert", "setdefault") and \
                isinstance(rebuilt.func.value, gast.Name):  # (xs.pop(): xs = xs[:-1],
            names.add(rebuilt.func.value.id)              # container_updates.rebuilt)
        if isinstance(node, (gast.Assign, gast.AugAssign)):  # y[i] = v changes y in place
            for target in getattr(node, "targets", [getattr(node, "target", None)]):
                if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                    names.add(target.value.id)
    return names


def _is_append(node) -> bool:
    return isinstance(node, gast.Expr) and isinstance(node.value, gast.Call) and \
        isinstance(node.value.func, gast.Attribute) and node.value.func.attr == "append" and \
        isinstance(node.value.func.value, gast.Name) and len(node.value.args) == 1 and \
        not node.value.keywords


def is_atom(node) -> bool:
    return isinstance(node, (gast.Name, gast.Constant)) or (
        isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load) and is_atom(node.value)
        and not isinstance(node.value, gast.Constant)) or (
        isinstance(node, gast.Tuple) and all(isinstance(e, gast.Constant) for e in node.elts))


def is_linear_chain(node) -> bool:
    """``a + b - c``: a tree of ``+``/``-`` whose leaves are atoms."""
    return isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)) and all(
        is_linear_chain(side) or is_atom(side) for side in (node.left, node.right))


def _static(node, normalize):
    """The object a dotted global name refers to, seen from ``normalize``'s function."""
    if isinstance(node, gast.Name):
        if node.id in normalize.locals:
            raise KeyError(node.id)
        if normalize.lexical and normalize.parent is not None:
            return _static(node, normalize.parent)
        return normalize.source.resolve(node.id)
    if isinstance(node, gast.Attribute):
        base = _static(node.value, normalize)
        try:
            value = getattr(base, node.attr)
        except AttributeError:
            raise KeyError(node.attr) from None
        holder = node.value.id if isinstance(node.value, gast.Name) else None
        note_attribute(base, node.attr, value, _resolving(node.value, normalize), holder)
        return value
    raise KeyError(type(node).__name__)


def _resolving(node, normalize):
    """The source whose free names ``node`` (a name of ``normalize``'s function) is read
    from."""
    while isinstance(node, gast.Name) and normalize.lexical and normalize.parent is not None:
        normalize = normalize.parent
    return normalize.source



def _keyed_global(normalize, node) -> bool:
    """Is ``node`` a free name whose value is a dict or a set (a module's ``D``)? A loop
    over it walks ``list(D)``, its keys: by index, ``D[i]`` would read a value, or fail.
    Its type is noted (``note_type``): another type at a later call builds again."""
    if node.id in normalize.locals or normalize.lexical:
        return False
    try:
        value = normalize.source.resolve(node.id)
    except KeyError:
        return False
    source = normalize.source
    if node.id in getattr(source, "closure", {}):
        note_type(source.closure[node.id], None, "cell")
    elif node.id in getattr(source, "globals", {}):
        note_type(source.globals, node.id, "item")
    if iterator(value):
        message, advice = iterator_refusal(node.id)
        raise source.error(DifferentiationError, message,
                           getattr(normalize, "stmt", None) or node, advice)
    return walked_by_key(value)


class _RenameLocal(trees.Transformer):
    """Rename the variables a comprehension binds (its own scope in Python)."""

    def __init__(self, renames: dict):
        self.renames = renames

    def visit_Name(self, node):
        if node.id in self.renames:
            return gast.Name(self.renames[node.id], node.ctx, None, None)
        return node


class _Rename(trees.Transformer):
    """Point the names inside an opaque expression (an f-string) at their current versions;
    not those a comprehension or a lambda in it binds (``any(v > 1 for v in x)``: ``x``)."""

    def __init__(self, normalize: SingleAssignment):
        self.normalize = normalize
        self.bound: frozenset = frozenset()

    def visit_Name(self, node):
        return node if node.id in self.bound else self.normalize.name(node)

    def _scope(self, node, names, outer=None):
        """``node`` with ``names`` its own; ``outer`` (a comprehension's first iterable) is
        read in the enclosing scope."""
        if outer is not None:
            outer = self.visit(outer)
            node.generators[0].iter = gast.Constant(None, None)  # (visited: not again)
        saved, self.bound = self.bound, self.bound | names
        node = self.generic_visit(node)
        self.bound = saved
        if outer is not None:
            node.generators[0].iter = outer
        return node

    def _comprehension(self, node):
        names = frozenset(n.id for gen in node.generators for n in trees.walk(gen.target)
                          if isinstance(n, gast.Name))
        return self._scope(node, names, node.generators[0].iter)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Lambda(self, node):
        args = node.args
        names = frozenset(a.id for a in args.posonlyargs + args.args + args.kwonlyargs +
                          [args.vararg, args.kwarg] if a is not None)
        args.defaults = [self.visit(d) for d in args.defaults]
        args.kw_defaults = [d if d is None else self.visit(d) for d in args.kw_defaults]
        saved, self.bound = self.bound, self.bound | names
        node.body = self.visit(node.body)
        self.bound = saved
        return node


_NOT_CONSTANT = object()


def _constant(node):
    """The value of ``node`` if it is a constant (``None``, a string, a number, ``-1.0``),
    else ``_NOT_CONSTANT``."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) in (int, float):
        return -node.operand.value
    if isinstance(node, gast.Constant) and (node.value is None or type(node.value) in (
            str, int, float, bool)):
        return node.value
    return _NOT_CONSTANT


def _changes_first(func) -> bool:
    """Does ``func`` change its first argument (its receiver), by its facts?"""
    facts = registry.facts(func) if func is not None else None
    return facts is not None and 0 in facts.mutates


def _changing_method(name: str) -> bool:
    """Does a method of that name change its receiver, on some container or array
    (``list.append``, ``dict.update``, ``np.ndarray.fill``...)? Read by name: the
    receiver's type is not known where the user's code is read."""
    return any(_changes_first(getattr(owner, name, None))
               for owner in (list, dict, set, bytearray, np.ndarray))


def _changing_container(name: str) -> bool:
    """Does a method of that name change a list's or dict's own items (``append``,
    ``update``), never an array's memory (``sort`` and ``fill`` do)?"""
    return any(_changes_first(getattr(owner, name, None)) for owner in (list, dict, set)) \
        and not _changes_first(getattr(np.ndarray, name, None))


def _changing_function(name: str) -> bool:
    """Does NumPy's function (``np.copyto``) or ufunc method (``np.add.at``) of that name
    change its first argument?"""
    return any(_changes_first(getattr(owner, name, None)) for owner in (np, np.add))


def changes_its_arguments(func, depth: int = 0) -> bool:
    """Does the user's function ``func`` change one of its parameters in place (an item
    or attribute stored, ``+=``, ``.append``, ``out=``...), itself or through another of
    the user's functions it passes the parameter to?

    >>> def first_set(items, v):
    ...     items[0] = v
    ...     return 0.0
    >>> def norm(v):
    ...     return (v ** 2).sum() ** 0.5
    >>> changes_its_arguments(first_set), changes_its_arguments(norm)
    (True, False)
    """
    import ast
    import inspect
    import textwrap
    func = getattr(func, "__func__", func)  # (a bound method: its self may be changed)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return False
    params = {a.arg for node in ast.walk(tree) if isinstance(node, ast.arguments)
              for a in node.posonlyargs + node.args + node.kwonlyargs +
              [a for a in (node.vararg, node.kwarg) if a is not None]}

    def root(node):
        while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    def resolve(node):
        if isinstance(node, ast.Name):
            return func.__globals__.get(node.id)
        if isinstance(node, ast.Attribute):
            return getattr(resolve(node.value), node.attr, None)
        return None

    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in (t for top in targets for t in ast.walk(top)):
            if isinstance(target, (ast.Subscript, ast.Attribute)) and root(target) in params \
                    and isinstance(target.ctx, (ast.Store, ast.Del)):
                return True
            if isinstance(node, ast.AugAssign) and target is node.target and \
                    isinstance(target, ast.Name) and target.id in params:
                return True
        if not isinstance(node, ast.Call):
            continue
        called, given = node.func, node.args + [k.value for k in node.keywords]
        if isinstance(called, ast.Attribute) and (
                _changing_method(called.attr) and root(called.value) in params or
                _changing_function(called.attr) and node.args and
                root(node.args[0]) in params):
            return True
        if any(k.arg == "out" and root(k.value) in params for k in node.keywords):
            return True
        if depth < 3 and any(root(a) in params for a in given):
            callee = resolve(called)
            if callable(callee) and _user_code(getattr(callee, "__func__", callee)) and \
                    changes_its_arguments(callee, depth + 1):
                return True
    return False


class SingleAssignment:
    """The expressions and assignments of :class:`Normalize`: one operation per statement."""

    def refuse_changing_calls(self, test, stopping: str | None = None):
        """A condition (``if``, ``while``, ``... if c else ...``) or an f-string runs as the
        user wrote it: refuse a call there of a function of the user's that changes its
        argument in place. s2sad would not see the change (a list item read after it
        was differentiated as it had been). ``stopping``: ``test`` is a generator
        expression that function (``any``) may stop reading early, where s2sad reads it
        all: such a call there is refused too."""
        for node in trees.walk(test):
            if not isinstance(node, gast.Call) or not any(
                    isinstance(n, gast.Name) and n.id in self.locals
                    for given in node.args + [k.value for k in node.keywords] +
                    ([node.func.value] if isinstance(node.func, gast.Attribute) else [])
                    for n in trees.walk(given)):
                continue  # (given none of the function's values: nothing s2sad follows)
            try:
                callee = _static(node.func, self)
            except KeyError:
                continue
            if callable(callee) and _user_code(getattr(callee, "__func__", callee)) and \
                    changes_its_arguments(callee):
                name = getattr(callee, "__name__", "the function")
                if stopping is not None:
                    raise self.source.syntax_error(
                        f"a call of {name}() in a generator expression read by "
                        f"{stopping}, which changes its argument in place", node,
                        "Python runs each item's call when the item is read, between "
                        "the reader's own steps, and skips those never read (any() stops "
                        "at the first true item, a loop at its break); s2sad would run "
                        "them all first. Build the list first (`[...]` in place of "
                        f"`(...)`), or loop yourself, calling {name}() in a statement of "
                        "its own.")
                raise self.source.syntax_error(
                    f"a call of {name}() in a condition or an f-string, which changes its "
                    "argument in place",
                    node, "s2sad runs them as they are, and would not see the change. "
                          f"Call {name}() in a statement of its own before, "
                          "and have it return the new value instead of changing its "
                          "argument.")

    def conditional(self, cond, body, orelse, normalized=(False, False)) -> gast.Name:
        """``body if cond else orelse`` as an ``if`` statement setting a temporary.
        ``normalized`` says which of the two is an atom made already (``a or b``: ``a``);
        the other is the user's expression, its names read as the user's (an inlined
        helper's ``v`` is its parameter, even where the caller has a ``v`` of its own)."""
        result = self.namer.temp()
        self.temps.add(result)
        branches, shares = [], []
        for expr, made in zip((body, orelse), normalized):
            saved, self.out = self.out, []
            value = expr if made else self.simple(expr)
            self.emit(gast.Assign([self.store(result)], value, None))
            branches.append(self.out)
            self.out = saved
            shares.extend(self.views(value))
            self.hold(result, result, value)  # (b = a if c else []: the list a is)
        self.emit(gast.If(cond, *branches))
        self.bind(result, shares)
        return self.load(result)

    def condition(self, test, normalized: bool = False) -> gast.Name:
        """``cond_1 = <test>``: the branch taken, kept for the reverse sweep."""
        if not normalized:
            self.refuse_changing_calls(test)
            test = _Rename(self).visit(clone(test))
        if not isinstance(test, (gast.Compare, gast.BoolOp)) and not (
                isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)):
            test = gast.Call(gast.Name("bool", gast.Load(), None, None), [test], [])
        name = self.namer.fresh("cond")
        self.emit(gast.Assign([self.store(name)], test, None))
        return self.load(name)

    def comprehension(self, node, start=None):
        """``[e for x in xs if c]`` as a loop that appends; ``sum(e for ...)`` as one that
        adds; ``{k: v for ...}`` as one that stores each value at its key (the key computed
        first, as Python computes it).

        The comprehension's own variables get fresh names, as Python gives them their own scope.
        """
        if isinstance(node, gast.GeneratorExp) and start is None and \
                id(node) not in self.__dict__.get("_read_whole", ()):  # (any(...), a loop)
            self.refuse_changing_calls(node, self._reader(node))
        node = clone(node)
        from .container_updates import items_generator  # (for k, v in d.items(): by key)
        node.generators = [g for gen in node.generators for g in items_generator(self, gen)]
        renames = {}
        for gen in node.generators:
            if gen.is_async:
                raise self.source.syntax_error("an async comprehension", node,
                                               "Use a plain comprehension.")
            for target in trees.walk(gen.target):
                if isinstance(target, gast.Name):
                    renames[target.id] = self.namer.claim(target.id)
        outer = node.generators[0].iter  # (evaluated in the enclosing scope, as Python
        node.generators[0].iter = gast.Constant(None, None)  # does: [x for x in x[:2]])
        _RenameLocal(renames).visit(node)
        node.generators[0].iter = outer
        result = self.namer.temp()
        self.temps.add(result)
        self.carried.add(result)
        self.carried.update(renames.values())
        self.locals.update(renames.values())
        self.locals.add(result)
        for name in renames.values():
            self.current[name] = name
        if isinstance(node, gast.DictComp):  # {k: v for ...}: each key, then its value
            self.made.add(result)  # (a new dict: a slot of it may be set)
            self.keyed.add(result)
            init = gast.Dict([], [])
            key = self.namer.claim("key")
            self.locals.add(key)
            self.carried.add(key)
            item = [gast.Assign([self.store(key)], node.key, None),
                    gast.Assign([gast.Subscript(self.load(result), self.load(key),
                                                gast.Store())], node.value, None)]
        elif start is None:
            self.made.add(result)  # (a new list: a slot of it may be set)
            init = gast.List([], gast.Load())
            item = gast.Expr(gast.Call(gast.Attribute(self.load(result), "append", gast.Load()),
                                       [node.elt], []))
        else:
            init = start
            item = gast.Assign([self.store(result)], gast.BinOp(self.load(result), gast.Add(),
                                                                 node.elt), None)
        init = self.simple(init)
        self.emit(gast.Assign([self.store(result)], init, None))
        self.current[result] = result
        self.bind(result, self.views(init))  # (its appends add what the items share: views)
        body = [gast.copy_location(i, node) for i in (item if isinstance(item, list)
                                                       else [item])]
        for gen in reversed(node.generators):
            for cond in reversed(gen.ifs):
                body = [gast.copy_location(gast.If(cond, body, []), node)]
            body = [gast.copy_location(gast.For(gen.target, gen.iter, body, [], None), node)]
        for stmt in body:
            self.statement(stmt)
        return self.load(result)

    def sequence(self, node, rebound=frozenset()) -> gast.expr:
        """An atom holding a sequence that can be indexed (``list(...)`` of an iterator).

        ``rebound``: names the loop body assigns. Python iterates over the sequence the
        name held when the loop began, so that one is kept under a name of its own."""
        if isinstance(node, gast.Name):
            value = self.name(node)
            if _keyed_global(self, node) or isinstance(value, gast.Name) and \
                    value.id != node.id and _keyed_global(self.root, value):
                # (for k in D, D a module's dict: its keys; D given a helper's parameter)
                return self.to_atom(gast.Call(self.load("list"), [value], []))
            return self.temporary(value) if node.id in rebound else value
        if self._builtin_call(node) == "range":
            return self.atom(node)
        if isinstance(node, gast.Attribute):  # (mod.G, a module's generator: as G)
            try:
                found = _static(node, self)
            except KeyError:
                found = None
            if iterator(found):
                message, advice = iterator_refusal(node.attr)
                raise self.source.error(DifferentiationError, message, self.stmt, advice)
        value = self.simple(node)
        if isinstance(value, (gast.List, gast.Tuple)):  # a display can be indexed as it is
            return self.to_atom(value)
        return self.to_atom(gast.Call(self.load("list"), [self.to_atom(value)], []))

    def _reader(self, genexp) -> str:
        """What reads ``genexp`` (in the user's statement), as a message names it."""
        stmt = self.stmt
        for node in trees.walk(stmt) if stmt is not None else ():
            if isinstance(node, gast.Call) and any(a is genexp for a in node.args):
                return f"{unparse(node.func).strip()}()"
            if isinstance(node, (gast.For, gast.comprehension)) and node.iter is genexp:
                return "a loop"
        return "its reader"

    def _whole_reader(self, node) -> bool:
        """Does ``node`` call a function that reads an iterable to its end before it does
        anything else (``sum``, ``list``, ``sorted``: its facts' ``whole``)?"""
        if not isinstance(node.func, gast.Name) or node.func.id in self.locals:
            return False
        try:
            callee = self.source.resolve(node.func.id)
        except KeyError:
            return False
        found = registry.facts(callee)
        return found is not None and found.whole

    def _builtin_call(self, node) -> str | None:
        import builtins
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id not in self.locals:
            try:
                value = self.source.resolve(node.func.id)
            except KeyError:
                return None
            for name in ("range", "zip", "enumerate", "sum", "reversed", "super"):
                if value is getattr(builtins, name):
                    return name
        return None

    def assign(self, target, value):
        if isinstance(target, gast.Name):
            self.function_args.pop(target.id, None)  # (a name given a value of its own)
            own = {target.id, self.current.get(target.id)}  # (a parameter of an inlined
            if target.id in self.carried and not self.is_atom(value) and any(  # helper may
                    isinstance(n, gast.Name) and n.id in own for n in trees.walk(value)):
                value = self.to_atom(value)  # `b = b * 2` -> `t_1 = b * 2; b = t_1` (be y_1)
            shares = self.views(value)  # (read before the name gets its new value)
            ssa = self.new_version(target.id)
            self.emit(gast.Assign([self.store(ssa)], value, None))
            self.bind(ssa, shares)
            self.note_joined(ssa, value)
            if self._made_here(value):  # (a new list: no other name reaches it, though a
                self.holders.pop(ssa, None)  # name kept in a loop reached the last one)
            self.hold(target.id, ssa, value)
            self.note_index_array(ssa, value)  # (x[idx]: a copy where idx is a list)
            from .star_args import note_array, note_display
            note_display(self, target.id, ssa, value)  # (f(*xs) written out for its length)
            note_array(self, ssa, value)  # (a, *rest = y, y an array: its rows)
            made = self._made_here(value) or \
                self._container_copy(value) is not None  # (a copy of a dict or list)
            (self.made if made else self.unmade).add(ssa)
            self._note_keyed(ssa, value)
            if isinstance(value, gast.BinOp) and any(  # [h] * 2, ys + ys: a value in two
                    isinstance(side, gast.List) or isinstance(side, gast.Name) and  # slots
                    side.id in self.made for side in (value.left, value.right)):
                self.repeated.add(ssa)
            return
        if isinstance(target, gast.Subscript):  # `z[0], z[1] = z[1], z[0]`: stored in its
            index = self.index(target.slice)    # turn, its index read then (as Python does)
            self.setitem(self.stmt, target, index, self.to_atom(value))
            return
        elts = target.elts
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(elts):
            # the right side's parts are atoms already, all evaluated before any target
            parts = value.elts
            if any(isinstance(t, gast.Name) and t.id in self.carried for t in elts):
                parts = [self.snapshot(v) for v in parts]  # `a, b = b, a` on kept names
            shown = self._right_side_of(target)
            for k, (t, v) in enumerate(zip(elts, parts, strict=True)):
                self._stored_before_read(t, parts[k + 1:], shown[k + 1:])
                self.assign(t, v)
            return
        source = self.to_atom(value)
        names, nested = [], []
        for elt in elts:
            if isinstance(elt, gast.Name):
                names.append(self.store(self.new_version(elt.id)))
            else:
                temp = self.namer.temp()
                names.append(self.store(temp))
                nested.append((elt, self.load(temp)))
        self.emit(gast.Assign([gast.Tuple(names, gast.Store())], source, None))
        whole = [source.id] if isinstance(source, gast.Name) else []
        for stored in names:  # parts of a value share its memory (an array's rows are views
            # of it; a list's items are the arrays it holds) and what it shares
            self.bind(stored.id, whole)
        shown = self._right_side_of(target)
        for k, (elt, temp) in enumerate(nested):
            self._stored_before_read(elt, [t for _, t in nested[k + 1:]], shown[k + 1:])
            self.assign(elt, temp)

    def _right_side_of(self, target) -> list:
        """The user's expressions the parts of the tuple ``target`` of this statement are
        given, one per part (the whole right side for each, when it is no display)."""
        stmt = self.stmt
        pairs = [(t, stmt.value) for t in stmt.targets] if isinstance(stmt, gast.Assign) \
            else []
        while pairs:
            t, v = pairs.pop()
            alike = isinstance(t, (gast.Tuple, gast.List)) and isinstance(
                v, (gast.Tuple, gast.List)) and len(t.elts) == len(v.elts)
            if t is target:
                return list(v.elts) if alike else [v] * len(target.elts)
            if alike:
                pairs += zip(t.elts, v.elts)
        return []

    def new_version(self, name: str) -> str:
        first = name if self.parent is None else None
        if name in self.carried:
            if name not in self.current:
                self.current[name] = first or self.namer.claim(name)
            self.root.objects.pop(self.current[name], None)  # (it holds another value now)
            return self.current[name]
        if name not in self.current:
            ssa = first or self.namer.claim(name)
        else:
            ssa = self.namer.version(name)
        self.current[name] = ssa
        return ssa

    # --- expressions ----------------------------------------------------------------

    @staticmethod
    def store(name):
        return gast.Name(name, gast.Store(), None, None)

    @staticmethod
    def load(name):
        if isinstance(name, gast.Name):
            name = name.id
        return gast.Name(name, gast.Load(), None, None)

    def is_atom(self, node) -> bool:
        """An atom, and not an attribute of a local value (``x.real`` is an operation)."""
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        if root is not node and isinstance(root, gast.Name) and (
                root.id in self.locals or root.id in self.current.values() or
                root.id in self.temps):  # (np.sin(x).size: a temporary's, t_1.size)
            return False  # (a value of this function, or the caller's in an inlined call)
        return is_atom(node)

    def atom(self, node):
        return self.to_atom(self.simple(node))

    def snapshot(self, value):
        """A temporary holding ``value`` now (names kept across a loop change later)."""
        if isinstance(value, gast.Constant):
            return value
        temp = self.namer.temp()
        self.temps.add(temp)
        self.emit(gast.Assign([self.store(temp)], value, None))
        self.bind(temp, self.views(value))  # (the same array: it shares what value shares)
        if isinstance(value, gast.Name) and value.id in self.temps and value.id in self.made:
            self.made.add(temp)  # (a list made here, read by no other name: still so)
        return self.load(temp)

    def _note_keyed(self, name: str, value) -> None:
        """``name`` holds a dict made here (a display, or a temporary holding one), its
        ``d.keys()`` or ``list(d)``: a loop over it gives its keys (``Normalize.keyed``)."""
        if isinstance(value, gast.Dict) or isinstance(value, gast.Name) and \
                value.id in self.temps and value.id in self.keyed or \
                isinstance(value, gast.Call) and not value.args and not value.keywords and \
                isinstance(value.func, gast.Attribute) and value.func.attr == "keys" and \
                isinstance(value.func.value, gast.Name) and value.func.value.id in self.keyed \
                or isinstance(value, gast.Call) and len(value.args) == 1 and \
                not value.keywords and self._callee(value.func) in (list, tuple, sorted) and \
                isinstance(value.args[0], gast.Name) and value.args[0].id in self.keyed:
            self.keyed.add(name)  # (list(d), list(d.keys()): its keys too)
        else:
            self.keyed.discard(name)

    def to_atom(self, value):
        """An atom for an already normalized expression (a temporary if needed)."""
        if self.is_atom(value):
            return value
        return self.temporary(value)

    def temporary(self, value):
        """``t_1 = value`` (it shares what ``value`` shares): ``t_1``."""
        temp = self.namer.temp()
        self.temps.add(temp)
        self.emit(gast.Assign([self.store(temp)], value, None))
        self.bind(temp, self.views(value))
        self.note_joined(temp, value)  # (t_1 = xs * 2: a list holding what xs holds)
        self.hold(temp, temp, value)  # (b = (a, 1.0)[0]: the lists the display holds)
        self.note_index_array(temp, value)
        integer_member(self, value)  # (layer.n_calls: an int, dtypes reads)
        if isinstance(value, (gast.List, gast.Dict)) or isinstance(value, gast.Call) and \
                self._callee(value.func) is list or isinstance(value, gast.BinOp) and \
                self._made_here(value):  # (`[h] * n`, list(x[1:]), ys + t_1: made here)
            self.made.add(temp)
        if isinstance(value, gast.Tuple):  # (a tuple: f(*t) written out for its length)
            self.root.__dict__.setdefault("_star_displays", {})[temp] = value
        self._note_keyed(temp, value)
        from .star_args import note_array
        note_array(self, temp, value)  # (a, *rest = x * 2: its rows)
        if _constant(value) is not _NOT_CONSTANT:  # `t_1 = -1.0` (passed to a helper)
            self.constants[temp] = _constant(value)
        return self.load(temp)

    def _passed_on(self, node):
        """A module-level function of the user's that a caller passed, passed on in turn to a
        function that is not inlined (``odeint(rhs, ...)`` in a function given ``rhs``):
        the function itself, by a name of the generated code; else None."""
        if isinstance(node, gast.Name) and node.id in self.function_args:
            how, what = self.function_args[node.id]
            if how == "inline" and what[0] is not None and what[1] is None:
                return gast.copy_location(gast.Name(self.fixed_name(
                    what[0], what[0].__name__), gast.Load(), None, None), node)
        return None

    def name(self, node):
        if node.id in self.function_args:  # a function the caller passed, used as a value
            how, what = self.function_args[node.id]
            if how == "call":
                return gast.copy_location(clone(what), node)
            if how == "choose":  # (np.max if cond else np.mean, as a value)
                from .function_values import chosen_value
                value = chosen_value(self, node)
                if value is not None:
                    return value
            raise self.source.syntax_error(
                f"the function passed as {node.id!r} used as a value", node,
                f"s2sad inlines it where it is called ({node.id}(...)); call it, or pass the "
                "value it computes instead. A call that is not inlined (odeint, np.vectorize...) "
                "takes a module-level function: define it there and pass the values it reads "
                "through args=(...).")
        if node.id in self.local_functions and node.id not in self.current:
            # odeint(rhs, ...), rhs a nested def or a lambda given a name: not inlined
            raise self.source.error(
                DifferentiationError, f"the function {node.id!r}, defined inside the "
                "differentiated function, used as a value", node,
                "s2sad inlines such a function where it is called, or where it is passed to a "
                "function of yours; a call that is not inlined (odeint, np.vectorize...) would "
                "not see the values it reads. Define it at module level and pass the values "
                "it reads through args=(...), or call it where it is used.")
        if node.id in self.locals:
            if node.id not in self.current:
                raise self.source.error(
                    DifferentiationError, f"local variable {node.id!r} is used before it is "
                    "assigned", node, "Assign it first (Python would raise UnboundLocalError).")
            return gast.copy_location(self.load(self.current[node.id]), node)
        if self.lexical and node.id not in self.local_functions:
            return self.parent.name(node)
        if self.parent is not None:
            return gast.copy_location(self.load(self.foreign_name(node)), node)
        try:
            self.source.resolve(node.id)
        except KeyError:
            raise self.source.error(DifferentiationError, f"name {node.id!r} is not defined",
                                    node, "Define it in the function's module or pass it in "
                                    "as an argument.") from None
        return node

    def simple(self, node):
        """One operation on atoms (temporaries emitted for the operands)."""
        if isinstance(node, gast.Name):
            return self.name(node)
        if isinstance(node, gast.Constant):
            return node
        if isinstance(node, gast.Attribute):
            from .desugar import array_function
            if array_function(node.attr) and isinstance(node.value, gast.Name) and \
                    node.value.id in self.locals:  # m = x.sum: a method as a value
                raise self.source.syntax_error(
                    f"the method {node.value.id}.{node.attr} used as a value", node,
                    f"Call it where it is used: {node.value.id}.{node.attr}(...).")
            read = self._property_read(node) if isinstance(node.ctx, gast.Load) else None
            if read is not None:  # (self.w, a @property of the user's class: its getter)
                return self.inline(read[0], *read[1])
            value = self.simple(node.value) if self.is_atom(node.value) else self.atom(node.value)
            return gast.copy_location(gast.Attribute(value, node.attr, gast.Load()), node)
        if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Subscript)):
            from .dunders import object_operator
            inlined = object_operator(self, node)  # v * a, v an object of a class of yours:
            if inlined is not None:                # its __mul__, inlined
                return inlined
        if isinstance(node, gast.BinOp):
            if isinstance(node.op, (gast.Add, gast.Sub)):
                return self.chain(node)
            return gast.copy_location(
                gast.BinOp(self.atom(node.left), node.op, self.atom(node.right)), node)
        if isinstance(node, gast.UnaryOp):
            return gast.copy_location(gast.UnaryOp(node.op, self.atom(node.operand)), node)
        if isinstance(node, (gast.ListComp, gast.GeneratorExp, gast.DictComp)):
            return self.comprehension(node)
        if isinstance(node, gast.Call):
            if self._whole_reader(node):  # (sum(f(l, v) for v in x): read whole, at once;
                self.__dict__.setdefault("_read_whole", set()).update(  # any() may stop
                    id(a) for a in node.args if isinstance(a, gast.GeneratorExp))  # early)
            from .star_args import spread, written_zip
            node = spread(self, node)  # f(*xs), f(**kw): written out for their lengths
            zipped = written_zip(self, node) if node.__dict__.get("unpacked") or \
                isinstance(func := node.func, gast.Name) and func.id in ("list", "tuple") \
                else None  # (list(zip(xs, ys)), a, b = zip(*pairs): their tuples)
            if zipped is not None:
                return self.simple(zipped)
            from .sort_keys import keyed  # sorted(xs, key=k), max(xs, key=k): written out
            picked = keyed(self, node)
            if picked is not None:
                return self.simple(picked)
            from .star_args import first_item, from_keys, zipped_dict  # next(iter(xs)): xs[0]
            shown = zipped_dict(self, node) or first_item(self, node) or \
                from_keys(self, node)  # dict.fromkeys(names, 0.0): its display
            if shown is not None:
                return self.simple(shown)
            from .partials import called
            node = called(self, node, _static)  # g(x), g = functools.partial(f, a): f(a, x)
            node, frozen = unfrozen(self, node, _static)  # d.logpdf(x), d = norm(mu, s): norm.logpdf
            func = node.func
            from .nested_gradients import gradient_made_here  # s2sad.grad(inner)(x)
            made = gradient_made_here(self, node, _static)
            if made is not None:
                return made
            self._refuse_derivative_made_here(node)
            if isinstance(func, gast.Name) and func.id in self.__dict__.get("_one_branch", ()):
                from .function_values import refuse_one_branch
                refuse_one_branch(self, node)
            if isinstance(func, gast.Name) and \
                    self.function_args.get(func.id, ("",))[0] == "choose":
                from .function_values import call_chosen  # fn(x), fn = np.max if c else ...
                return call_chosen(self, node)
            from .function_values import items_length  # len(acts), acts = [np.tanh, ...]
            length = items_length(self, node)
            if length is not None:
                return length
            if isinstance(func, gast.Subscript) and isinstance(func.value, gast.Name) and \
                    self.function_args.get(func.value.id, ("",))[0] == "items":
                from .function_values import call_item  # acts[1](x), acts = [np.tanh, ...]
                return call_item(self, node)
            if self._builtin_call(node) == "sum" and len(node.args) in (1, 2) and \
                    isinstance(node.args[0], (gast.GeneratorExp, gast.ListComp)) and \
                    not node.keywords:
                start = node.args[1] if len(node.args) == 2 else gast.Constant(0, None)
                return self.comprehension(node.args[0], start=start)
            built = self._namedtuple(node)
            if built is not None:
                return built
            if isinstance(func, (gast.Attribute, gast.Subscript)):
                from .function_values import held_function  # self.act(x), self.act = np.tanh
                held = held_function(self, node)
                if held is not None:
                    return held
            inlined = self.callee(func, node) or self._keyword_stand_in(node)
            if inlined is None and isinstance(func, gast.Attribute):
                node, inlined = self._ufunc_method(node)
            if inlined is None and isinstance(func, (gast.Attribute, gast.Name,
                                                     gast.Subscript)):
                node, inlined = self._object_method(node)
                func = node.func
            if inlined is not None:
                return self.inline(node, *inlined)
            if isinstance(func, gast.Attribute) and self._builtin_call(func.value) == "super":
                raise self.source.syntax_error(
                    "super() in a differentiated method", node,
                    f"Call the base class's method by name, as BaseClass.{func.attr}(self, "
                    "...): that is inlined.")
            if self._builtin_call(node) == "super":  # (super().prop: not a method called)
                raise self.source.syntax_error(
                    "super() other than to call a method", node,
                    "Call a method of the base class with super().method(...), or read the "
                    "attribute by the base class's name.")
            lam = next((a for a in list(node.args) + [k.value for k in node.keywords]
                        if isinstance(a, gast.Lambda)), None)
            if lam is not None:
                raise self.source.syntax_error(
                    f"a lambda passed to {self._dotted(func)}()", lam,
                    "A function of yours that takes a function is inlined with it; pass "
                    "this one a value computed with NumPy instead.")
            if node.__dict__.get("copied") and node.args and \
                    self._object_ref(node.args[0]) not in (None, ("none",)):
                raise self.source.syntax_error(  # (m.copy(), copy.copy(m): not an array's)
                    f"a copy of the object {gast.unparse(node.args[0]).strip()!r} of your class",
                    node, "Read the attributes it needs (`m.w`) into variables and compute "
                    "with those: s2sad follows an object's attributes, not copies of it.")
            if isinstance(func, gast.Name) and func.id in self.function_args:
                func = clone(self.function_args[func.id][1])  # np.sin, as the caller wrote it
            elif isinstance(func, gast.Attribute):
                func = gast.copy_location(gast.Attribute(self.atom(func.value), func.attr,
                                                         gast.Load()), func)
            else:
                func = self.atom(func)
            args = [self._passed_on(a) or self.atom(a) for a in node.args]
            keywords = [gast.keyword(k.arg, self._passed_on(k.value) or self.atom(k.value))
                        for k in node.keywords]
            if frozen is not None:  # (the frozen arguments, read where it was frozen)
                args, keywords = args + frozen[0], frozen[1] + keywords
            call = gast.copy_location(gast.Call(func, args, keywords), node)
            if node.__dict__.get("copied"):  # x.copy() (Desugar): a dict's or list's too
                call.copied = True
            if "method" in node.__dict__:  # (x.conj(), desugared: the method's facts too)
                call.method = node.method
            if not self.trusted:
                self._note_unknown_call(call)
            return call
        if isinstance(node, gast.Subscript):
            from .index_tricks import joined
            join = joined(self, node, _static)  # np.r_[x, y]: np.concatenate([x, y])
            if join is not None:
                return gast.copy_location(join, node)
            return gast.copy_location(
                gast.Subscript(self.atom(node.value), self.index(node.slice), gast.Load()), node)
        if isinstance(node, gast.Compare):
            return gast.copy_location(gast.Compare(self.atom(node.left), node.ops,
                                                   [self.atom(c) for c in node.comparators]),
                                      node)
        if isinstance(node, (gast.Tuple, gast.List)):
            from .star_args import spread_display
            node = spread_display(self, node)  # (*xs, y): written out for xs's length
            return gast.copy_location(type(node)([self.atom(e) for e in node.elts], gast.Load()),
                                      node)
        if isinstance(node, gast.Dict):
            keys = [None if k is None else self.atom(k) for k in node.keys]
            return gast.copy_location(gast.Dict(keys, [self.atom(v) for v in node.values]), node)
        if isinstance(node, gast.JoinedStr):  # (an f-string runs as written, as a test does)
            self.refuse_changing_calls(node)
            return _Rename(self).visit(node)
        if isinstance(node, gast.IfExp):
            known = self._constant_test(node.test)  # (an inlined helper's `-1 if axis is None
            if known is not None:                   # else axis`, given axis=None)
                return self.atom(node.body if known else node.orelse)
            return self.conditional(self.condition(node.test), node.body, node.orelse)
        if isinstance(node, gast.BoolOp):
            known = self._constant_value(_Rename(self).visit(clone(node)))
            if known is not _NOT_CONSTANT:  # (`keepdims and axis is not None`, in a helper)
                return gast.copy_location(gast.Constant(known, None), node)
            # `a or b` is `a if a else b`; `a and b` is `b if a else a` (b evaluated lazily)
            result = self.atom(node.values[0])
            for value in node.values[1:]:
                cond = self.condition(result, normalized=True)
                if isinstance(node.op, gast.Or):
                    result = self.conditional(cond, result, value, (True, False))
                else:
                    result = self.conditional(cond, value, result, (False, True))
            return result
        raise self.source.syntax_error(type(node).__name__, node)

    def chain(self, node):
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            from .dunders import object_operator
            inlined = object_operator(self, node)
            if inlined is not None:
                return inlined
            return gast.copy_location(gast.BinOp(self.chain(node.left), node.op,
                                                 self.chain(node.right)), node)
        return self.atom(node)

    def index(self, node):
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self.atom(p) for p in (node.lower, node.upper, node.step)]
            return gast.copy_location(gast.Slice(*parts), node)
        if isinstance(node, gast.Tuple):
            from .star_args import spread_display
            node = spread_display(self, node)  # x[*idx] (Python 3.11): for idx's length
            return gast.copy_location(gast.Tuple([self.index(e) for e in node.elts], gast.Load()),
                                      node)
        return self.atom(node)
