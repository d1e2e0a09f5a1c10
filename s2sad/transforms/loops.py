"""Loops: ``for x in xs:`` is walked by index, a loop over objects is unrolled, and a loop's
sharing is found to a fixed point.

``for i in range(n)`` stays; any other iterable is walked by index, so the loop variable is
an ordinary subscript read (``x = xs[i]``). A loop over the user's objects (``for layer in
self.layers``) is unrolled, one copy of the body per object, so that each object's methods
are inlined. Where the body updates something in place, it is first normalized without
keeping the result, again and again, until the sharing at the top of the loop no longer
changes (a fixed point). So the aliasing checks see every value a name may hold there.
"""

from __future__ import annotations

import copy

import gast

from .. import trees
from ..trees import clone
from .grown_walks import changes_a_list
from .single_assignment import (_NOT_CONSTANT, _changing_container, _changing_method,
                                _constant, _is_append)


def _enumerate_start(call):
    """The start of ``enumerate(xs)``, ``enumerate(xs, 1)``, ``enumerate(xs, start=-2)``
    (an integer written out), else ``_NOT_CONSTANT``."""
    given = call.args[1:] + [k.value for k in call.keywords if k.arg == "start"]
    if not call.args or len(given) > 1 or len(given) != len(call.args) - 1 + len(
            call.keywords):
        return _NOT_CONSTANT
    start = _constant(given[0]) if given else 0
    return start if type(start) is int else _NOT_CONSTANT


def _calls_with(body, name: str) -> bool:
    """Does ``body`` call ``name`` or a method of it (``layer(x)``, ``layer.block.f(x)``),
    or pass it to a function (``apply(layer, x)``)?"""
    for node in (n for stmt in body for n in trees.walk(stmt)):
        if isinstance(node, gast.Call):
            root = node.func
            while isinstance(root, gast.Attribute):
                root = root.value
            if any(isinstance(n, gast.Name) and n.id == name
                   for n in [root, *node.args, *(k.value for k in node.keywords)]):
                return True
    return False


def backwards_range(call):
    """The ``range(...)`` call that walks ``range(*call.args)`` from its end, as
    ``reversed`` does, or None: for steps of 1, and for a constant step from the last value
    (``a + (b - a - 1) // s * s``, the ``1`` taking the step's sign). The start is read
    three times: give it as a name.

    >>> import gast
    >>> def walked(text):
    ...     call = gast.parse(text).body[0].value
    ...     found = backwards_range(call)
    ...     return None if found is None else gast.unparse(found).strip()
    >>> walked("range(n)"), walked("range(a, b)")
    ('range(n - 1, -1, -1)', 'range(b - 1, a - 1, -1)')
    >>> walked("range(1, n, 2)")
    'range(1 + (n - 1 - 1) // 2 * 2, 1 - 2, -2)'
    >>> walked("range(a, b, -3)"), walked("range(a, b, s)")
    ('range(a + (b - a + 1) // -3 * -3, a + 3, 3)', None)
    >>> forms = {s: walked(f"range(a, b, {s})") for s in (-3, -2, -1, 1, 2, 3)}
    >>> all(list(reversed(range(a, b, s))) == list(eval(forms[s], {"a": a, "b": b}))
    ...     for a in range(-5, 6) for b in range(-5, 6) for s in forms)
    True
    """
    args = call.args

    def const(n):
        return gast.Constant(n, None)

    def op(a, kind, b):
        return gast.BinOp(clone(a), kind(), clone(b))
    if call.keywords or not 1 <= len(args) <= 3:
        return None
    if len(args) == 1:
        return gast.Call(call.func, [op(args[0], gast.Sub, const(1)), const(-1), const(-1)], [])
    step = _constant(args[2]) if len(args) == 3 else 1
    if type(step) is not int or step == 0:
        return None
    start, stop = args[0], args[1]
    if step == 1:
        return gast.Call(call.func, [op(stop, gast.Sub, const(1)),
                                     op(start, gast.Sub, const(1)), const(-1)], [])
    count = op(op(op(stop, gast.Sub, start), gast.Sub if step > 0 else gast.Add, const(1)),
               gast.FloorDiv, const(step))
    last = op(start, gast.Add, op(count, gast.Mult, const(step)))
    return gast.Call(call.func, [last, op(start, gast.Sub if step > 0 else gast.Add,
                                           const(abs(step))), const(-step)], [])


class Loops:
    """The loops of :class:`Normalize`: walked by index, unrolled, iterated to a fixed point."""

    def loop(self, stmt):
        """``for`` over ``range(...)`` stays; any other iterable is walked by index, so
        the loop variable is an ordinary subscript read: ``x = xs[i]``."""
        body_names = {n.id for s in stmt.body for n in trees.walk(s)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        iterable, target = stmt.iter, stmt.target
        builtin = self._builtin_call(iterable)
        walked_back = builtin == "reversed" and len(iterable.args) == 1 and \
            not iterable.keywords and self._builtin_call(iterable.args[0]) == "range" and \
            backwards_range(iterable.args[0]) is not None
        if walked_back:  # (a range of its own, not a list made of the values)
            iterable, builtin = iterable.args[0], "range"
        if builtin == "range" and isinstance(target, gast.Name) and not (
                {n.id for n in trees.walk(iterable) if isinstance(n, gast.Name)} & body_names):
            header, walks = self.simple(iterable), False
            if walked_back:  # (its bounds are atoms now: read again at no cost; its
                header = backwards_range(gast.Call(header.func, [  # step, the number given)
                    *header.args[:2], *(clone(a) for a in iterable.args[2:])], []))
                header.args = [self.to_atom(self._atoms(a)) for a in header.args]
            if target.id in body_names:  # (i = i * 2 in the body: i is an ordinary name
                index = self.store(self.namer.fresh("i"))  # set from a counter of its own)
                prelude, every = [(target, self.load(index.id))], {}
            else:
                index = self.store(self.new_version(target.id))
                prelude, every = [], {}
        else:
            if walked_back:
                iterable, builtin = stmt.iter, "reversed"
            index_target, backwards, start, walks = None, False, None, True

            def zipped(node, names) -> bool:  # zip(a, b) unpacked into as many names
                return self._builtin_call(node) == "zip" and isinstance(
                    names, (gast.Tuple, gast.List)) and len(names.elts) == len(node.args) \
                    and not node.keywords
            if zipped(iterable, target):
                sources, targets = iterable.args, list(target.elts)
            elif builtin == "enumerate" and isinstance(target, (gast.Tuple, gast.List)) and \
                    len(target.elts) == 2 and _enumerate_start(iterable) is not _NOT_CONSTANT:
                inner, start = iterable.args[0], _enumerate_start(iterable)
                if zipped(inner, target.elts[1]):  # for i, (x, y) in enumerate(zip(xs, ys))
                    sources, targets = inner.args, list(target.elts[1].elts)
                else:
                    sources, targets = [inner], [target.elts[1]]
                index_target = target.elts[0]
            elif builtin == "reversed" and len(iterable.args) == 1 and \
                    not iterable.keywords and self._builtin_call(iterable.args[0]) != "range":
                sources, targets = [iterable.args[0]], [target]  # (not of a range)
                backwards = True
            else:
                sources, targets = [iterable], [target]
            # zip(xs, reversed(ys)): ys read from its end, ys[len(ys) - 1 - i], as the
            # reversed iterator reads it (a sequence: a name, an item, an attribute, a range)
            flipped = [self._builtin_call(s) == "reversed" and len(s.args) == 1 and
                       not s.keywords and len(sources) > 1 and (isinstance(
                           s.args[0], (gast.Name, gast.Attribute, gast.Subscript)) or
                           self._builtin_call(s.args[0]) == "range") for s in sources]
            sources = [s.args[0] if flip else s for s, flip in zip(sources, flipped)]
            self._refuse_changed_while_read(stmt, sources, body_names)
            # a variable walking a list of alike objects whose methods the body calls: known
            # as every item (``for layer in self.layers: x = layer(x)``)
            every = {t.id: self._every_item(source) for t, source in zip(targets, sources)
                     if isinstance(t, gast.Name)}
            self.walking[id(stmt)] = every
            seqs = [self.sequence(source, body_names) for source in sources]
            if isinstance(index_target, gast.Name) and index_target.id not in body_names \
                    and not start:
                index = self.store(self.new_version(index_target.id))
            else:
                index = self.store(self.namer.fresh("i"))
            lengths = [gast.Call(self.load("len"), [s], []) for s in seqs]
            count = lengths[0] if len(lengths) == 1 else gast.Call(self.load("min"), lengths, [])
            if backwards:  # range(len(xs) - 1, -1, -1)
                last = self.to_atom(gast.BinOp(self.to_atom(count), gast.Sub(),
                                               gast.Constant(1, None)))
                header = gast.Call(self.load("range"), [last, gast.Constant(-1, None),
                                                        gast.Constant(-1, None)], [])
            else:
                header = gast.Call(self.load("range"), [count], [])
            prelude = [(t, gast.Subscript(clone(s), self._walked_index(s, flip, index),
                                          gast.Load()))
                       for t, s, flip in zip(targets, seqs, flipped, strict=True)]
            if index_target is not None and index.id != getattr(index_target, "id", None):
                counted = self.load(index.id) if not start else gast.BinOp(  # (i set in the
                    self.load(index.id), gast.Add(), gast.Constant(start, None))  # body)
                prelude.insert(0, (index_target, counted))
            for _, read in prelude:  # (over a dict, DictViews reads its keys instead)
                read.walked = True
        saved = self.out
        self.out = []
        for t, read in prelude:  # x = xs[i] at the top of the body
            self.assign(t, read)
            if isinstance(t, gast.Name) and every.get(t.id) is not None:
                self.root.objects[self.current[t.id]] = every[t.id]
        reads, self.out = self.out, saved
        body = self.block(stmt.body)
        if walks:
            self._refuse_growing(header, body)
        self.emit(gast.For(index, header, reads + body, [], None))
        self.statements(stmt.orelse)

    def _walked_index(self, seq, flipped: bool, index):
        """``i``, or for a sequence read from its end, ``last - i`` (``last``, its length
        less one, set before the loop)."""
        if not flipped:
            return self.load(index.id)
        length = self.to_atom(gast.Call(self.load("len"), [clone(seq)], []))
        last = self.to_atom(gast.BinOp(length, gast.Sub(), gast.Constant(1, None)))
        return gast.BinOp(last, gast.Sub(), self.load(index.id))

    def _refuse_changed_while_read(self, stmt, sources, body_names):
        """Refuse a loop over a computed iterable (``y[1:]``, ``map(f, xs)``,
        ``itertools.accumulate(xs)``) whose body changes in place what it is computed from:
        Python's iterator reads ``y`` or ``xs`` item by item, as the loop changes it; s2sad
        takes the items when the loop begins. (A name is walked by index, read as it is.)"""
        if self.trusted:
            return  # (s2sad's own code: a derivative's, differentiated again)
        read = {name for s in sources if not isinstance(s, gast.Name)
                for name in self._read_lazily(s)}
        if not read:
            return
        fresh = (gast.BinOp, gast.UnaryOp, gast.List, gast.Dict, gast.Tuple, gast.Constant,
                 gast.ListComp, gast.DictComp)
        made_here = {t.id for node in (n for s in stmt.body for n in trees.walk(s))
                     if isinstance(node, gast.Assign) for t in node.targets
                     if isinstance(t, gast.Name) and not isinstance(node.value, fresh)}
        for node in (n for s in stmt.body for n in trees.walk(s)):
            changed, itself = None, False
            if isinstance(node, (gast.Subscript, gast.Attribute)) and \
                    isinstance(node.ctx, gast.Store) or isinstance(node, gast.AugAssign):
                changed = node.target if isinstance(node, gast.AugAssign) else node
            elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                    _changing_method(node.func.attr):  # (the registry's facts)
                changed = node.func.value
                itself = _changing_container(node.func.attr)  # (not its items' memory)
            while isinstance(changed, (gast.Subscript, gast.Attribute)):
                changed = changed.value
            if not isinstance(changed, gast.Name):
                continue
            name = changed.id
            itself = itself or isinstance(node, gast.Subscript) and self._new_container(name)
            same = name in self.current and any(
                self.current.get(r) == self.current[name] for r in read)
            if name in read or name in made_here or same or name in self.current and \
                    not itself and set(self.sharing(name)) & read:
                raise self.source.syntax_error(
                    f"a change to '{name}' in a loop over an iterable computed from it",
                    node, "Python's iterator reads it item by item as the loop changes it, "
                    "and s2sad takes the items when the loop begins. Take them first "
                    "(`for v in list(...):`), or change a copy.")

    def _new_container(self, name: str) -> bool:
        """Was ``name`` last given a list or dict display before the loop (a
        comprehension's result, say)? A store into it changes it, not the arrays it holds."""
        value = self.current.get(name, name)
        for stmt in reversed(self.out):
            if isinstance(stmt, gast.Assign) and any(
                    isinstance(t, gast.Name) and t.id == value for t in stmt.targets):
                return isinstance(stmt.value, (gast.List, gast.Dict))
        return False

    def _read_lazily(self, node) -> set:
        """The variables a loop's iterable ``node`` may read as the loop goes on: none for
        a new list, tuple or array made at once (``sorted(xs)``, ``[f(v) for v in xs]``,
        ``x * 2``, a range), whose items are the objects a copy taken then holds; else
        every variable in it (``y[1:]``, a view; ``map(f, xs)``, an iterator)."""
        if isinstance(node, (gast.Constant, gast.BinOp, gast.UnaryOp, gast.ListComp,
                             gast.SetComp, gast.DictComp)):
            return set()
        if isinstance(node, (gast.List, gast.Tuple)):
            return set().union(*(self._read_lazily(e) for e in node.elts
                                 if not isinstance(e, gast.Name)))
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                node.func.attr in ("keys", "items") and not node.args and \
                isinstance(node.func.value, gast.Name):
            return set()  # (a dict's keys or items: walked by its keys, each value read then)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id not in self.locals:
            try:
                func = self.source.resolve(node.func.id)
            except KeyError:
                func = None
            if any(func is f for f in (sorted, list, tuple, range, len)):
                return set()
        return {n.id for n in trees.walk(node) if isinstance(n, gast.Name) and
                isinstance(n.ctx, gast.Load) and n.id in self.current}

    def _refuse_growing(self, header, body):
        """Refuse ``xs.append(v)`` (or another method changing a list) in a loop over ``xs``
        that the ``grown_walks`` pass left as it was (in a function inlined there, say):
        Python's loop goes on over the items it adds, the loop walked by index
        (``header``: ``range(len(xs))``...) stops at the length ``xs`` had when it began
        (its derivative silently missed their terms)."""
        walked = {n.id for n in trees.walk(header) if isinstance(n, gast.Name)}
        for node in (n for stmt in body for n in trees.walk(stmt)):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                    changes_a_list(node.func.attr) and \
                    isinstance(node.func.value, gast.Name) and node.func.value.id in walked:
                raise self.source.syntax_error(
                    f"`.{node.func.attr}(...)` of the list a loop walks, in that loop", node,
                    "Python's loop goes on over the items it adds, and s2sad walks the "
                    "items the list had when the loop began. Loop over a copy "
                    "(`for v in list(xs):`), or with `while` and an index.")

    def _atoms(self, node):
        """An expression of atoms made one operation on atoms (temporaries for the rest)."""
        if isinstance(node, gast.BinOp):
            return gast.BinOp(self.to_atom(self._atoms(node.left)), node.op,
                              self.to_atom(self._atoms(node.right)))
        return node

    def _every_item(self, source):
        """The reference of every item of ``source``, a list of alike objects of an
        argument's (``model.layers``), or None."""
        if any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
               for n in trees.walk(source)):
            return None
        ref = self._object_ref(source)
        return ref[2] if ref is not None and ref[0] == "seq" else None

    def over_objects(self, stmt):
        """``stmt``, or a ``for`` like it where ``zip`` or ``enumerate`` is given
        ``reversed(layers)`` of a list of objects: ``layers[::-1]``, a list of the same
        objects in the order ``reversed`` gives them, whose items are known."""
        def flipped(node):
            if self._builtin_call(node) != "reversed" or len(node.args) != 1 or \
                    node.keywords or self._builtin_call(node.args[0]) == "range":
                return node
            ref = self._object_ref(node.args[0])
            if ref is None or ref[0] != "seq":
                return node
            back = gast.Slice(None, None, gast.UnaryOp(gast.USub(), gast.Constant(1, None)))
            return gast.copy_location(gast.Subscript(node.args[0], back, gast.Load()), node)
        iterable = stmt.iter
        if self._builtin_call(iterable) not in ("zip", "enumerate") or not iterable.args:
            return stmt
        inner = iterable.args[0] if self._builtin_call(iterable) == "enumerate" else None
        if inner is not None and self._builtin_call(inner) == "zip":
            args = [gast.copy_location(gast.Call(inner.func, [flipped(a) for a in inner.args],
                                                 inner.keywords), inner)] + iterable.args[1:]
        elif inner is not None:
            args = [flipped(inner)] + iterable.args[1:]
        else:
            args = [flipped(a) for a in iterable.args]
        if all(a is b for a, b in zip(args, iterable.args)) and (
                inner is None or self._builtin_call(inner) != "zip" or
                all(a is b for a, b in zip(args[0].args, inner.args))):
            return stmt
        call = gast.copy_location(gast.Call(iterable.func, args, iterable.keywords), iterable)
        return gast.copy_location(gast.For(stmt.target, call, stmt.body, stmt.orelse,
                                           stmt.type_comment), stmt)

    def unrolled(self, stmt) -> bool:
        """A ``for`` over a list of objects whose methods it calls (``for layer in
        self.layers: x = layer(x)``, also with ``enumerate``, ``reversed``, or ``zip`` with
        other sequences), written out item by item, so that each item's own class's
        methods are inlined; False (nothing done) for another loop. The gradient is built
        for lists of that length holding objects of those classes (the entry tests it). A
        loop that only reads the items' attributes (``np.sum(layer.w ** 2)``) stays a loop;
        one with ``break`` or ``continue``, or that gives its variable another value, is
        not written out. (Zipped with a sequence shorter than the objects, the written-out
        loop stops at an IndexError where Python's would stop early.)"""
        iterable, target, index_target, backwards = stmt.iter, stmt.target, None, False
        builtin, start = self._builtin_call(iterable), 0
        if builtin == "reversed" and len(iterable.args) == 1 and not iterable.keywords:
            iterable, backwards = iterable.args[0], True
        elif builtin == "enumerate" and isinstance(target, (gast.Tuple, gast.List)) and \
                len(target.elts) == 2 and iterable.args:
            given = iterable.args[1:] + [k.value for k in iterable.keywords if k.arg == "start"]
            start = _constant(given[0]) if given else 0
            if len(given) + 1 != len(iterable.args) + len(iterable.keywords) or \
                    type(start) is not int:
                return False
            iterable, (index_target, target) = iterable.args[0], target.elts
        if self._builtin_call(iterable) == "zip" and not iterable.keywords and \
                isinstance(target, (gast.Tuple, gast.List)) and \
                len(target.elts) == len(iterable.args):
            columns = list(zip(target.elts, iterable.args))  # (for layer, w in zip(...))
        else:
            columns = [(target, iterable)]
        names = [t.id for t, _ in columns if isinstance(t, gast.Name)]
        if len(names) != len(columns) or not any(_calls_with(stmt.body, n) for n in names) or \
                any(isinstance(n, (gast.Break, gast.Continue)) or isinstance(n, gast.Name) and
                    isinstance(n.ctx, gast.Store) and n.id in names
                    for s in stmt.body for n in trees.walk(s)):
            return False
        refs = [self._object_ref(seq) for _, seq in columns]
        if not any(ref is not None and ref[0] == "seq" for ref in refs):
            return False
        refs = [ref if ref is not None and ref[0] == "seq" else None for ref in refs]
        if all(ref is None or ref[2] is not None for ref in refs):
            return False  # (items alike: a loop, each one's methods inlined as any one's)
        from .kinds import _UNROLLED
        if any(ref is not None and len(ref[1]) > _UNROLLED for ref in refs):
            return False
        seqs = [self.atom(seq) for _, seq in columns]  # (each read once, as Python does)
        order = range(min(len(ref[1]) for ref in refs if ref is not None))
        for k in reversed(order) if backwards else order:
            if index_target is not None:
                self.assign(index_target, gast.Constant(start + k, None))
            for (name, _), seq, ref in zip(columns, seqs, refs):
                self.assign(name, gast.Subscript(clone(seq), gast.Constant(k, None),
                                                 gast.Load()))
                if ref is not None:
                    self.root.objects[self.current[name.id]] = ref[1][k]
            self.statements(stmt.body)
        self.statements(stmt.orelse)  # (no `break`: the `else` block runs)
        return True

    def unrolled_map(self, stmt) -> bool:
        """A ``for`` over a dict of objects held by an argument (``for name, layer in
        self.layers.items()``, ``.values()``, ``.keys()`` or the dict itself), written
        out item by item in the dict's order, each item's class's methods inlined and
        the key a constant (``self.layers[name](x)`` is that item's call); False (nothing
        done) for another loop. The entry tests the dict's keys, in order, and each
        item's class. A loop with ``break`` or ``continue``, or that gives its
        variables another value, is not written out."""
        iterable, target = stmt.iter, stmt.target
        method = "keys"
        if isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Attribute) and \
                iterable.func.attr in ("items", "values", "keys") and not iterable.args and \
                not iterable.keywords:
            method, iterable = iterable.func.attr, iterable.func.value
        if any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
               for n in trees.walk(iterable)):
            return False
        ref = self._object_ref(iterable)
        if ref is None or ref[0] != "map":
            return False
        if method == "items":
            if not (isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == 2 and
                    all(isinstance(t, gast.Name) for t in target.elts)):
                return False
            key_target, item_target = target.elts
        elif isinstance(target, gast.Name):
            key_target, item_target = (target, None) if method == "keys" else (None, target)
        else:
            return False
        names = {t.id for t in (key_target, item_target) if t is not None}
        if any(isinstance(n, (gast.Break, gast.Continue, gast.Lambda, gast.FunctionDef)) or
               isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load) and n.id in names
               for s in stmt.body for n in trees.walk(s)):
            return False
        seq = self.atom(iterable)  # (read once, as Python does)

        class _Key(gast.NodeTransformer):  # (the key a constant: self.layers[name](x))
            def visit_Name(self, node):
                if key_target is None or node.id != key_target.id or \
                        not isinstance(node.ctx, gast.Load):
                    return node
                return gast.copy_location(gast.Constant(key_now, None), node)
        for key_now, item_ref in zip(ref[2], ref[1]):
            if key_target is not None:
                self.assign(key_target, gast.Constant(key_now, None))
            if item_target is not None:
                self.assign(item_target, gast.Subscript(clone(seq), gast.Constant(key_now, None),
                                                        gast.Load()))
                self.root.objects[self.current[item_target.id]] = item_ref
            self.statements([_Key().visit(clone(s)) for s in stmt.body])
        self.statements(stmt.orelse)  # (no `break`: the `else` block runs)
        return True

    def unrolled_by_index(self, stmt) -> bool:
        """``for i in reversed(range(len(self.layers))): x = self.layers[i](x)`` (or any
        ``range`` of constants and ``len`` of a list of objects), where the items are not
        alike (each class, each function in their attributes, its own): written out for
        each ``i``, so that ``self.layers[0](x)`` is each object's own call; False (nothing
        done) for another loop. ``i`` is given each number, as Python gives it."""
        import builtins
        iterable, target, backwards = stmt.iter, stmt.target, False
        if self._builtin_call(iterable) == "reversed" and len(iterable.args) == 1 and \
                not iterable.keywords:
            iterable, backwards = iterable.args[0], True
        if not isinstance(target, gast.Name) or self._builtin_call(iterable) != "range" or \
                iterable.keywords or not 1 <= len(iterable.args) <= 3:
            return False
        name = target.id
        if any(isinstance(n, (gast.Break, gast.Continue, gast.Lambda, gast.FunctionDef)) or
               isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load) and n.id == name
               for s in stmt.body for n in trees.walk(s)):
            return False

        def indexed(node) -> bool:  # layers[i](x), layers[i].forward(x): not alike items
            while isinstance(node, gast.Attribute):
                node = node.value
            if not (isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Name) and
                    node.slice.id == name):
                return False
            ref = self._object_ref(node.value)
            return ref is not None and ref[0] == "seq" and ref[2] is None
        if not any(isinstance(n, gast.Call) and indexed(n.func)
                   for s in stmt.body for n in trees.walk(s)):
            return False

        def number(node):  # 3, -1, len(self.layers), len(self.layers) - 1: an int, or None
            value = _constant(node)
            if type(value) is int:
                return value
            if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
                left, right = number(node.left), number(node.right)
                if left is None or right is None:
                    return None
                return left + right if isinstance(node.op, gast.Add) else left - right
            if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords and \
                    isinstance(node.func, gast.Name) and node.func.id not in self.locals:
                try:
                    if self.source.resolve(node.func.id) is not builtins.len:
                        return None
                except KeyError:
                    return None
                ref = self._object_ref(node.args[0])
                return len(ref[1]) if ref is not None and ref[0] == "seq" else None
            return None
        bounds = [number(a) for a in iterable.args]
        if None in bounds or (len(bounds) == 3 and bounds[2] == 0):
            return False
        order = range(*bounds)
        from .kinds import _UNROLLED
        if len(order) > _UNROLLED:
            return False

        class _Number(gast.NodeTransformer):
            def visit_Name(self, node):
                if node.id != name or not isinstance(node.ctx, gast.Load):
                    return node
                return gast.copy_location(gast.Constant(number_now, None), node)
        for number_now in reversed(order) if backwards else order:
            self.assign(target, gast.Constant(number_now, None))
            self.statements([_Number().visit(clone(s)) for s in stmt.body])
        self.statements(stmt.orelse)  # (no `break`: the `else` block runs)
        return True

    def looping(self, stmt, run) -> None:
        """Normalize a loop with ``run()``. A pass may start with the values the previous
        pass left: when the body updates something in place, the sharing at the top of the
        loop is found first (by normalizing the body without keeping the result) until it
        no longer changes, so that the checks see every value a name may hold there."""
        if not self.trusted and any(
                isinstance(n, gast.AugAssign) or _is_append(n) or (
                    isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store))
                for n in trees.walk(stmt)):
            seen = None
            while seen != self._classes():
                seen = self._classes()
                saved, deferred = self._save(), len(self.root.deferred)
                run()  # (raises where the sharing makes an update unsafe)
                end = self.node
                self._restore(saved)
                del self.root.deferred[deferred:]  # (the pass kept says them again)
                self.merge_nodes(end)
        start = dict(self.node)
        self._forget_objects(stmt)  # (a pass may start with the objects the last one left)
        run()
        self.merge_nodes(start)  # the loop may run no pass at all
        self._forget_objects(stmt)

    def _save(self):
        root = self.root
        return (self.out, len(self.out), dict(self.current), dict(self.node), set(self.temps),
                dict(root.objects),
                set(self.carried), set(self.locals), dict(self.local_functions),
                dict(self.foreign), dict(self.foreign_cells), dict(root.foreign),
                dict(root.foreign_cells), dict(root.source.extra),
                dict(root.__dict__.get("_foreign_keys", {})), copy.deepcopy(self.namer.__dict__),
                self.stmt, dict(root.__dict__.get("_fixed", {})))

    def _restore(self, saved) -> None:
        root = self.root
        (out, n, current, node, temps, objects, carried, locals_, functions, foreign, cells,
         root_foreign, root_cells, extra, keys, namer, stmt, fixed) = saved
        root.objects.clear()
        root.objects.update(objects)
        del out[n:]
        self.out, self.current, self.node, self.temps, self.carried = out, current, node, \
            temps, carried
        self.locals, self.local_functions, self.foreign, self.foreign_cells = locals_, \
            functions, foreign, cells
        root.foreign.clear()
        root.foreign.update(root_foreign)
        root.foreign_cells.clear()
        root.foreign_cells.update(root_cells)
        root.source.extra.clear()
        root.source.extra.update(extra)
        if "_foreign_keys" in root.__dict__:
            root._foreign_keys.clear()
            root._foreign_keys.update(keys)
        if "_fixed" in root.__dict__:  # (its names go with the namer's and extra's)
            root._fixed.clear()
            root._fixed.update(fixed)
        self.namer.__dict__.clear()
        self.namer.__dict__.update(namer)
        self.stmt = stmt
