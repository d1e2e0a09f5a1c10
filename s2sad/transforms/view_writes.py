"""Writes through named views of a local array, written as writes into the array.

``v = y[1:]`` is a view: ``v[0] = e`` changes ``y[1]``, and a later read of ``y`` or of
``v`` sees it. The reverse sweep follows one name a store, so the store is moved onto
``y``, and each later read of ``v`` reads ``y`` again (the same items, as NumPy's view
does)::

    y = np.zeros(4)                     y = np.zeros(4)
    v = y[1:]                           v = y[1:]
    v[0] = x[0]                         y[view_index(y, np.s_[1:], 0)] = x[0]
    return np.sum(y * x) + v[0]         return np.sum(y * x) + y[1:][0]

``A[i][j] = e`` and ``A[i][j] += e`` on such an array are written the same way, and
``y.T[0] = e`` too (the value put in ``y``'s order). A reshape of an array made
C-contiguous (``np.zeros``) is a view too, whose items are no basic index of ``y``: a
write through it changes a copy, put back whole (``y[...] = t.reshape(y.shape)``);
``y.ravel()`` and ``np.ravel(y)`` of such an array are its ``y.reshape(-1)``. ``y.flat[i]
= e`` is written the same way (C order, whatever the memory); ``y.flat[i]`` read is
``y.flatten()[i]``. A view chosen by a test (``v = y[1:] if c else y[:2]``, or ``v``
bound last in both arms of an ``if``) keeps the test in a new name: the arm Python took
decides each read and write (``y[1:] if t else y[:2]``).
``v = y[[0, 2]]`` and ``v = y[y > 0]`` are copies (NumPy's index of a list or a mask):
written ``y[[0, 2]].copy()``, so that a write to ``v`` is seen to leave ``y`` alone.
``view_index`` (:mod:`s2sad.runtime.views`) composes the indices at run time; it
refuses any that is not basic (an array or a mask: NumPy made a copy). Only a view
that is safe to read again is rewritten: its array is made here by a NumPy constructor
and bound once, the view is bound once and read only after its line in its block, and
nothing its index reads is bound again there. Another view stays as it is (and an
update through it is refused, :mod:`.transforms.aliasing`).

>>> import gast
>>> tree = gast.parse("def f(x):\\n    y = np.zeros(4)\\n    v = y[1:]\\n"
...                   "    v[0] = x[0]\\n    return np.sum(y * x) + v[0]").body[0]
>>> resolve = {"np": __import__("numpy")}.__getitem__
>>> writer = ViewWrites(resolve, lambda f: f.__name__, "np", lambda target: None)
>>> print(gast.unparse(writer.run(tree)).strip())
def f(x):
    y = np.zeros(4)
    v = y[1:]
    y[view_index(y, np.s_[1:], 0)] = x[0]
    return np.sum(y * x) + y[1:][0]
"""

from __future__ import annotations

import collections

import gast
import numpy as np

from .. import registry, trees
from ..runtime.elementwise import check_flat
from ..runtime.views import Transposed, raveled_in_place, view_axes, view_index, view_shape

_BLOCKS = ("body", "orelse", "finalbody")


class _Reshaped:
    """In a view's indices: ``.reshape(*args)`` of a C-contiguous array (a view)."""

    def __init__(self, args: list):
        self.args = args

    def call(self, array):
        """``array.reshape(*args)``."""
        return gast.Call(gast.Attribute(array, "reshape", gast.Load()),
                         trees.clone(self.args), [])

    def ndim(self) -> int:
        return len(self.args[0].elts) if len(self.args) == 1 and \
            isinstance(self.args[0], gast.Tuple) else len(self.args)


class _Chosen:
    """In a view's indices: ``y[a] if test else y[b]``, ``test`` a name bound once (the
    arm Python took decides, at each read and write)."""

    def __init__(self, test, a, b):
        self.test, self.a, self.b = test, a, b

    def parts(self) -> list:
        return [self.test, self.a, self.b]


def _chain(node):
    """``(name, [index, ...])`` for ``name[i][j]...`` (outermost index last; ``"T"`` for
    ``.T``), else None."""
    indices = []
    while isinstance(node, gast.Subscript) or \
            isinstance(node, gast.Attribute) and node.attr == "T":
        indices.append(node.slice if isinstance(node, gast.Subscript) else "T")
        node = node.value
    if isinstance(node, gast.Name) and indices:
        return node.id, indices[::-1]
    return None


def _basic(index, ints) -> bool:
    """Is ``index`` basic by its syntax (ints, slices, None, ``...``, names of ``ints``
    and arithmetic of them: checked at run time too)?"""
    items = _items(index)
    for item in items:
        if isinstance(item, gast.Slice):
            parts = [p for p in (item.lower, item.upper, item.step) if p is not None]
            if not all(_scalar(p, ints) for p in parts):
                return False
        elif not _scalar(item, ints):
            return False
    return True


def _scalar(node, ints=None) -> bool:
    """An int, None, ``...``, a name (of ``ints``, where given: a list or a mask held in
    a name would make NumPy copy), or arithmetic of them (no call, list or compare)."""
    if isinstance(node, gast.Constant):
        return node.value is None or node.value is Ellipsis or \
            (isinstance(node.value, int) and not isinstance(node.value, bool))
    if isinstance(node, gast.Name):
        return ints is None or node.id in ints
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return _scalar(node.operand, ints)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                               gast.FloorDiv, gast.Mod)):
        return _scalar(node.left, ints) and _scalar(node.right, ints)
    return False


def _int_names(tree, resolve) -> set:
    """The names that hold a Python int wherever the function binds them: targets of
    ``for i in range(...)``, and names given only int constants, ``len(...)`` or
    arithmetic of those (a fixed point). A parameter is not one (it may be a list).

    >>> tree = gast.parse("def f(x, k):\\n    n = len(x)\\n    for i in range(n):\\n"
    ...                   "        j = i + 1\\n    m = [0, 1]\\n    p = k + 1").body[0]
    >>> sorted(_int_names(tree, {"range": range, "len": len}.get))
    ['i', 'j', 'n']
    """
    def called(node, function) -> bool:
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)):
            return False
        try:
            return resolve(node.func.id) is function
        except (KeyError, AttributeError):
            return False

    bound, handled = collections.defaultdict(list), set()
    other = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    other |= {a.id for a in (tree.args.vararg, tree.args.kwarg) if a is not None}
    walked = trees.walk(tree)
    for node in walked:
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            bound[node.targets[0].id].append(node.value)
            handled.add(id(node.targets[0]))
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and \
                isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)):
            bound[node.target.id].append(gast.BinOp(node.target, node.op, node.value))
            handled.add(id(node.target))
        elif isinstance(node, gast.For) and isinstance(node.target, gast.Name) and \
                called(node.iter, range):
            bound[node.target.id].append("int")
            handled.add(id(node.target))
    for node in walked:  # (an unpacking, a with, another loop, a nested function...)
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load) and \
                id(node) not in handled:
            other.add(node.id)
    candidates = set(bound) - other

    def whole(value, ints) -> bool:
        if value == "int" or called(value, len):
            return True
        if isinstance(value, gast.Constant):
            return isinstance(value.value, int) and not isinstance(value.value, bool)
        return _scalar(value, ints)

    ints = set(candidates)
    while True:  # (the largest set whose bindings are all ints of the set)
        kept = {name for name in ints if all(whole(v, ints) for v in bound[name])}
        if kept == ints:
            return ints
        ints = kept


def _rewrite_blocks(stmt, rewrite) -> None:
    """Give each block of ``stmt`` (``body``, ``orelse``, ``finalbody``; not a nested
    function's) ``rewrite``'s list for it."""
    for field in _BLOCKS:
        inner = getattr(stmt, field, None)
        if isinstance(inner, list) and not isinstance(stmt, gast.FunctionDef):
            setattr(stmt, field, rewrite(inner))


def _items(index) -> list:
    if index == "T" or isinstance(index, (_Reshaped, _Chosen)):
        return []
    return index.elts if isinstance(index, gast.Tuple) else [index]


def _new_axis(item) -> bool:
    return isinstance(item, gast.Constant) and item.value is None


def _array_dims(index) -> int | None:
    """How many axes ``y[index]`` takes away from ``y`` (its ints), or None if the index
    keeps one for sure (a slice, None or ``...``: a view, never a number)."""
    if index == "T" or isinstance(index, (_Reshaped, _Chosen)) or any(
            isinstance(i, gast.Slice) or isinstance(i, gast.Constant) and
                           (i.value is None or i.value is Ellipsis) for i in _items(index)):
        return None
    return len(_items(index))


def _ndim(ndim: int | None, index) -> int | None:
    """The number of axes of ``y[index]``, ``y`` of ``ndim`` (None: not known)."""
    if isinstance(index, _Reshaped):
        return index.ndim()
    if isinstance(index, _Chosen):
        a, b = _ndim(ndim, index.a), _ndim(ndim, index.b)
        return a if a == b else None
    if ndim is None:
        return None
    items = _items(index)
    ints = sum(1 for i in items if not (isinstance(i, gast.Slice) or
                                        isinstance(i, gast.Constant) and
                                        (i.value is None or i.value is Ellipsis)))
    return ndim - ints + sum(1 for i in items if _new_axis(i))


class ViewWrites(trees.Transformer):
    """Rewrites writes through named views of local arrays (see the module)."""

    def __init__(self, resolve, helper, numpy_name: str, refuse_chain, given=None,
                 temp=None):
        self.temp = temp  # (a new name: a reshaped view's copy, written, then put back)
        self.resolve, self.helper, self.numpy_name = resolve, helper, numpy_name
        self.given = given or {}  # the arguments given as arrays: name -> number of axes
        self.refuse_chain = refuse_chain  # (target): raises the refusal of `a[i][j] = v`
        self.views = {}  # view name -> (array name, [index, ...])
        self.ints = set()  # the names that hold Python ints (_int_names)
        self.changed = False

    # --- which names are arrays made here, and which views are safe to read again -------

    def _function_of(self, node):
        if isinstance(node, gast.Call):
            try:
                return self._dotted(node.func)
            except (KeyError, AttributeError):
                return None
        return None

    def _dotted(self, node):
        if isinstance(node, gast.Name):
            return self.resolve(node.id)
        if isinstance(node, gast.Attribute):
            return getattr(self._dotted(node.value), node.attr)
        raise KeyError(node)

    def _arrays(self, tree, bound) -> dict:
        """The names bound once, to a NumPy constructor's new array: name -> its number
        of axes where the call says it (``np.zeros((2, 3))``), else None."""
        found = {}
        for node in trees.walk(tree):
            if not (isinstance(node, gast.Assign) and len(node.targets) == 1 and
                    isinstance(node.targets[0], gast.Name) and
                    bound[node.targets[0].id] == 1):
                continue
            value = node.value
            copied = isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
                and value.func.attr == "copy" and not value.args and not value.keywords and \
                isinstance(value.func.value, gast.Name) and value.func.value.id in self.given
            if copied:  # (x.copy(), x an array argument)
                found[node.targets[0].id] = self.given[value.func.value.id]
                continue
            func = self._function_of(value)
            facts = registry.facts(func) if func is not None else None
            if facts is None or not facts.allocates or facts.uncopied_view_of and any(
                    k.arg == "copy" and not (isinstance(k.value, gast.Constant) and
                                             k.value.value is True) for k in value.keywords):
                continue  # (np.array(x, copy=False) may be x itself)
            ndim = None
            if facts.shape_from == 0 and node.value.args:
                shape = node.value.args[0]
                ndim = len(shape.elts) if isinstance(shape, (gast.Tuple, gast.List)) else \
                    1 if isinstance(shape, gast.Constant) and isinstance(shape.value, int) \
                    else None
            found[node.targets[0].id] = ndim
            if facts.allocates == "C" and \
                    (facts.order_at is None or len(value.args) <= facts.order_at) and \
                    not any(k.arg in ("order", "like") for k in value.keywords):
                # (np.zeros(s, float, 'F'): order given by position)
                self.contiguous.add(node.targets[0].id)
        return found

    def acts(self, nodes) -> bool:
        """Could :meth:`run` change or refuse anything in the function walked as ``nodes``?
        Only where an array is made here (a NumPy constructor's, ``x.copy()`` of an array
        argument: every view it follows is of one), an array argument is indexed by a list,
        a mask or a name (``x[[0, 2]]``: a copy), or an item of an item is written
        (``a[i][j] = e``, ``y.T[0] = e``). Elsewhere it leaves the tree as it is."""
        for node in nodes:
            cls = node.__class__
            if cls is gast.Assign:
                value, targets = node.value, node.targets
                if value.__class__ is gast.Call and self._allocates(value) or \
                        value.__class__ is gast.Subscript and \
                        isinstance(value.value, gast.Name) and value.value.id in self.given and \
                        any(isinstance(i, (gast.List, gast.Compare, gast.Name))
                            for i in _items(value.slice)):
                    return True
            elif cls is gast.AugAssign:
                targets = [node.target]
            else:
                continue
            if any(t.__class__ is gast.Subscript and t.value.__class__ is not gast.Name
                   for t in targets):
                return True
        return False

    def _allocates(self, call) -> bool:
        """Is ``call`` (an assignment's value) one that :meth:`_arrays` may take for an
        array made here: ``x.copy()`` of an array argument, or a constructor's?"""
        func = call.func
        if isinstance(func, gast.Attribute) and func.attr == "copy" and \
                isinstance(func.value, gast.Name) and func.value.id in self.given:
            return True
        found = self._function_of(call)
        facts = registry.facts(found) if found is not None else None
        return facts is not None and bool(facts.allocates)

    def run(self, tree):
        self._facts(tree)
        if self.temp is not None and self._rows(tree):  # (for row in A: row = A[i])
            self._facts(tree)
        if self.temp is not None and self._flat(tree):  # (y.flat[i] = e)
            self._facts(tree)
        if self.temp is not None and self._transposed_ravels(tree):  # (r = y.T.ravel())
            self._facts(tree)
        if self.temp is not None and self._one_arm_views(tree):  # (if c: v = y[1:] else:
            self._facts(tree)                                      # v = z * 2.0)
        if self.temp is not None and self._choices(tree):  # (v = y[1:] if c else y[:2])
            self._facts(tree)
        self.ints = _int_names(tree, self.resolve)
        self._find(tree.body)
        for node in trees.walk(tree):  # (z.T[1] = e, z a reshape: not followed, refused
            # as an update of memory z shares)
            targets = node.targets if isinstance(node, gast.Assign) else \
                [node.target] if isinstance(node, gast.AugAssign) else []
            for found in filter(None, map(_chain, targets)):
                view = self.views.get(found[0])
                if view is not None and any(isinstance(i, _Reshaped) for i in view[1]) and \
                        (len(found[1]) != 1 or found[1][0] == "T"):
                    del self.views[found[0]]
        if self.views or self._chained(tree):
            self.changed = True
        if self.changed:
            body = [self.visit(s) for s in tree.body]
            tree.body = [s for part in body for s in (part if isinstance(part, list) else [part])]
        for target in self._chained(tree):  # (on a list, or in a nested function)
            self.refuse_chain(target)
        for node in trees.walk(tree):  # (y.flat[i] = e, y not known an array: refused)
            if isinstance(node, (gast.Assign, gast.AugAssign)):
                for target in node.targets if isinstance(node, gast.Assign) else [node.target]:
                    if trees.flat_item(target):
                        self.refuse_chain(target)
        return tree

    def _rows(self, tree) -> bool:
        """``for row in A:``, ``A`` an array made here of two axes or more, ``row``
        written in the loop: ``for i in range(len(A)): row = A[i]``, the same rows (an
        array's iterator reads ``A[i]`` at each turn), each a view that is followed."""
        changed = False
        try:
            builtin = self.resolve("range") is range and self.resolve("len") is len and \
                not self.bound["range"] and not self.bound["len"]
        except KeyError:
            builtin = False
        for loop in trees.walk(tree) if builtin else ():
            if not (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) and
                    isinstance(loop.iter, gast.Name) and loop.iter.id in self.arrays and
                    (self.ndims.get(loop.iter.id) or 0) >= 2 and
                    self.bound[loop.target.id] == 1 and not loop.orelse):
                continue
            row = loop.target.id
            if not any(isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) and
                       n.target.id == row or isinstance(n, gast.Subscript) and
                       not isinstance(n.ctx, gast.Load) and _chain(n) is not None and
                       _chain(n)[0] == row for s in loop.body for n in trees.walk(s)):
                continue  # (only read: as it is)
            i = self.temp()
            array = loop.iter.id
            loop.target = gast.Name(i, gast.Store(), None, None)
            loop.iter = trees.located(gast.Call(
                gast.Name("range", gast.Load(), None, None), [gast.Call(
                    gast.Name("len", gast.Load(), None, None),
                    [gast.Name(array, gast.Load(), None, None)], [])], []), loop.iter)
            loop.body.insert(0, trees.located(gast.Assign(
                [gast.Name(row, gast.Store(), None, None)],
                gast.Subscript(gast.Name(array, gast.Load(), None, None),
                               gast.Name(i, gast.Load(), None, None), gast.Load()), None),
                loop))
            changed = self.changed = True
        return changed

    def _arm_view(self, value) -> str | None:
        """``y`` for ``y[i]``, ``y`` an array made here."""
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and \
                value.value.id in self.arrays:
            return value.value.id
        return None

    def _transposed_ravels(self, tree) -> bool:
        """``r = y.T.ravel()`` (or ``np.ravel(y.T)``), ``y`` made C-contiguous here: NumPy
        gives a view of ``y`` where ``y.T`` is C-contiguous too (one row or one column:
        then ``y.reshape(-1)``), else a copy. Both are kept, with the test; each read of
        ``r`` reads the one NumPy gave, each write writes it::

            r = y.T.ravel()              t = raveled_in_place(y.T)
                                         r_1 = y.reshape(-1)
                                  ->     r = y.T.flatten()
            r[0] = e                     if t:
                                             r_1[0] = e
                                         else:
                                             r[0] = e
            ... r ...                    ... (r_1 if t else r) ...

        Only where ``r`` is bound once, written only by ``r[i] = e``, ``r[i] op= e`` or
        ``r op= e`` statements and read only where a new value is made of it
        (:meth:`_only_read_or_written`)."""
        found = []
        for stmt in trees.walk(tree):
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                    isinstance(stmt.targets[0], gast.Name)):
                continue
            value, base = stmt.value, None
            if isinstance(value, gast.Call) and not value.args and not value.keywords and \
                    isinstance(value.func, gast.Attribute) and value.func.attr == "ravel":
                base = value.func.value
            elif isinstance(value, gast.Call) and len(value.args) == 1 and \
                    not value.keywords and self._function_of(value) is np.ravel:
                base = value.args[0]
            name = stmt.targets[0].id
            if isinstance(base, gast.Attribute) and base.attr == "T" and \
                    isinstance(base.value, gast.Name) and base.value.id in self.contiguous \
                    and self.bound[name] == 1 and name not in self.closed and \
                    self._only_read_or_written(tree, [stmt], name):
                found.append((stmt, name, base.value.id))
        if not found:
            return False
        for stmt, name, array in found:
            view, copy, test = self.temp(), name, self.temp()  # (the copy keeps its name)
            rewritten = {id(stmt): [
                gast.Assign([_store(test)], gast.Call(gast.Name(
                    self.helper(raveled_in_place), gast.Load(), None, None),
                    [gast.Attribute(_load(array), "T", gast.Load())], []), None),
                gast.Assign([_store(view)], gast.Call(gast.Attribute(
                    _load(array), "reshape", gast.Load()), [gast.Constant(-1, None)], []), None),
                gast.Assign([_store(copy)], gast.Call(gast.Attribute(gast.Attribute(
                    _load(array), "T", gast.Load()), "flatten", gast.Load()), [], []), None)]}
            self._split(tree, name, (test, view, copy), rewritten)
        self.changed = True
        return True

    def _one_arm_views(self, tree) -> bool:
        """``v`` bound last in both arms of an ``if``, in one to a view of an array made
        here (``y[1:]``, slices of constants only: it cannot raise) and in the other to
        something else: the view is taken again after the ``if`` (the same ``y``, the same
        items) and the test kept in a new name; each read of ``v`` reads the one Python
        bound, each write writes it (:meth:`_split`)::

            if c:                        if c:
                v = y[1:]                    t = True
            else:                ->      else:
                v = z * 2.0                  v = z * 2.0
            v[0] = e                         t = False
                                         v_1 = y[1:]
                                         if t:
                                             v_1[0] = e
                                         else:
                                             v[0] = e

        Only where ``y`` is bound at the function's top level before the ``if``, and
        ``v`` is written and read as :meth:`_only_read_or_written` says."""
        top = {id(n): at for at, s in enumerate(tree.body) for n in trees.walk(s)}
        bound_at = {s.targets[0].id: at for at, s in enumerate(tree.body)
                    if isinstance(s, gast.Assign) and len(s.targets) == 1 and
                    isinstance(s.targets[0], gast.Name)}
        found = []
        for stmt in trees.walk(tree):
            if not (isinstance(stmt, gast.If) and stmt.body and stmt.orelse) or \
                    not all(isinstance(s, gast.Assign) and len(s.targets) == 1 and
                            isinstance(s.targets[0], gast.Name)
                            for s in (stmt.body[-1], stmt.orelse[-1])):
                continue
            last = (stmt.body[-1], stmt.orelse[-1])
            name = last[0].targets[0].id
            views = [self._fixed_view(s.value) for s in last]
            if last[1].targets[0].id != name or self.bound[name] != 2 or \
                    name in self.closed or (views[0] is None) == (views[1] is None):
                continue
            at = 0 if views[0] is not None else 1
            if bound_at.get(views[at], len(tree.body)) >= top.get(id(stmt), -1) or \
                    not self._only_read_or_written(tree, list(last), name):
                continue
            found.append((stmt, at, name))
        for stmt, at, name in found:
            test, view, copy = self.temp(), self.temp(), name  # (the other keeps its name)
            arms = (stmt.body, stmt.orelse)
            taken = arms[at][-1].value
            arms[at][-1] = trees.located(gast.Assign([_store(test)], gast.Constant(
                True, None), None), arms[at][-1])  # (True: the view, whichever arm)
            other = arms[1 - at][-1]
            arms[1 - at].append(trees.located(gast.Assign([_store(test)], gast.Constant(
                False, None), None), other))
            again = trees.located(gast.Assign([_store(view)], taken, None), stmt)
            self._split(tree, name, (test, view, copy), {id(stmt): [stmt, again]})
        if found:
            self.changed = True
        return bool(found)

    def _fixed_view(self, value) -> str | None:
        """``y`` for ``y[s]``, ``y`` an array made here with its axes known, ``s`` slices of
        int constants (or ``...``) no more than its axes: the same view wherever it is
        taken, and one that cannot raise."""
        if not (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and
                value.value.id in self.arrays and self.ndims.get(value.value.id)):
            return None

        def bound(part) -> bool:
            if isinstance(part, gast.UnaryOp) and isinstance(part.op, gast.USub):
                part = part.operand
            return part is None or isinstance(part, gast.Constant) and \
                type(part.value) is int

        items = _items(value.slice)
        if not all(isinstance(i, gast.Slice) and all(bound(getattr(i, f))
                                                     for f in ("lower", "upper", "step"))
                   or isinstance(i, gast.Constant) and i.value is Ellipsis for i in items) \
                or sum(isinstance(i, gast.Slice) for i in items) > \
                self.ndims[value.value.id] or \
                sum(isinstance(i, gast.Constant) for i in items) > 1 or \
                any(isinstance(i, gast.Slice) and isinstance(i.step, gast.Constant) and
                    i.step.value == 0 for i in items):
            return None  # (a step of 0 raises)
        return value.value.id

    def _split(self, tree, name: str, names: tuple, rewritten: dict) -> None:
        """Each read of ``name`` as ``view if test else copy`` (``names``), each write of it
        as ``if test:`` the write on ``view``, ``else:`` on ``copy``; the statements of
        ``rewritten`` (``{id: [statements]}``) replaced by theirs."""
        test, view, copy = names

        def split(target_of, node):
            arms = []
            for arm in (view, copy):
                made = trees.clone(node)
                target = target_of(made)
                if isinstance(target, gast.Name):
                    target.id = arm
                else:
                    target.value.id = arm
                arms.append([made])
            return gast.If(_load(test), arms[0], arms[1])

        written = {id(t.value if isinstance(t, gast.Subscript) else t)
                   for n in trees.walk(tree) if isinstance(n, (gast.Assign, gast.AugAssign))
                   for t in (n.targets if isinstance(n, gast.Assign) else [n.target])}

        def read(value):
            return _is_name(value, name) and isinstance(value.ctx, gast.Load) and \
                id(value) not in written

        for node in trees.walk(tree):
            for field, value in list(gast.iter_fields(node)):
                if read(value):
                    setattr(node, field, gast.IfExp(_load(test), _load(view), _load(copy)))
                elif isinstance(value, list):
                    value[:] = [gast.IfExp(_load(test), _load(view), _load(copy))
                                if read(v) else v for v in value]
        for node in trees.walk(tree):
            if id(node) in rewritten:
                continue
            if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Subscript) \
                    and _is_name(node.targets[0].value, name):
                rewritten[id(node)] = [split(lambda n: n.targets[0], node)]
            elif isinstance(node, gast.AugAssign) and (
                    _is_name(node.target, name) or isinstance(node.target, gast.Subscript)
                    and _is_name(node.target.value, name)):
                rewritten[id(node)] = [split(lambda n: n.target, node)]

        def rewrite(block):
            out = []
            for s in block:
                _rewrite_blocks(s, rewrite)
                for made in rewritten.get(id(s), [s]):
                    out.append(trees.located(made, s) if made is not s else s)
            return out

        tree.body = rewrite(tree.body)
        for new in (test, view):
            self.bound[new] += 1
        self.bound[copy] = 1

    def _only_read_or_written(self, tree, stmts: list, name: str) -> bool:
        """Is ``name`` (bound by ``stmts``) written only by statements ``name[i] = e``,
        ``name[i] op= e`` or ``name op= e``, and read only where a new value is made of
        it (an operand, ``name[i]`` so read, an argument of a NumPy function or a method
        that neither changes it nor gives a view of it)?"""
        parents = {}
        for node in trees.walk(tree):
            for child in gast.iter_child_nodes(node):
                parents[id(child)] = node
        writes = set()
        for node in trees.walk(tree):
            targets = node.targets if isinstance(node, gast.Assign) else \
                [node.target] if isinstance(node, gast.AugAssign) else []
            for target in targets:
                if isinstance(target, gast.Subscript) and _is_name(target.value, name) or \
                        isinstance(node, gast.AugAssign) and _is_name(target, name):
                    if len(targets) != 1:
                        return False
                    writes.add(id(target.value if isinstance(target, gast.Subscript)
                                  else target))
        for node in trees.walk(tree):
            if not _is_name(node, name) or any(node is s.targets[0] for s in stmts) or \
                    id(node) in writes:
                continue
            if not isinstance(node.ctx, gast.Load) or not self._made_anew(node, parents):
                return False
        return True

    def _made_anew(self, node, parents) -> bool:
        """Is ``node`` read where only a new value is made of it (see above)?"""
        parent = parents.get(id(node))
        if isinstance(parent, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            return True
        if isinstance(parent, gast.Subscript) and parent.value is node and \
                isinstance(parent.ctx, gast.Load):
            return self._made_anew(parent, parents)  # (r[1:] itself: a view, so the same)
        if isinstance(parent, gast.keyword):
            parent, node = parents.get(id(parent)), parent
        if isinstance(parent, gast.Call) and parent.func is not node:
            func = self._function_of(parent)
            facts = registry.facts(func) if func is not None else None
            if facts is None or any(isinstance(a, gast.Starred) for a in parent.args):
                return False
            at = node.arg if isinstance(node, gast.keyword) else \
                next(i for i, a in enumerate(parent.args) if a is node)
            return at not in facts.mutates and at not in facts.returns_view_of and \
                at not in facts.uncopied_view_of and "*" not in facts.returns_view_of and \
                not isinstance(at, str)  # (by keyword: its position not read here)
        if isinstance(parent, gast.Attribute) and parent.value is node:
            unbound = getattr(np.ndarray, parent.attr, None)
            facts = registry.facts(unbound) if callable(unbound) else None
            call = parents.get(id(parent))
            return facts is not None and not facts.mutates and not facts.returns_view_of \
                and not facts.uncopied_view_of and isinstance(call, gast.Call) and \
                call.func is parent
        return isinstance(parent, gast.Return)

    def _choices(self, tree) -> bool:
        """A view chosen by a test, ``v = y[1:] if c else y[:2]``, or ``v`` bound last in
        both arms of an ``if``, written with the test held in a new name bound once (the
        view is read again with it)::

            if c:                        if c:
                s                            s
                v = y[1:]                    t = True
            else:               ->       else:
                v = y[:2]                    t = False
                                         v = y[1:] if t else y[:2]
        """
        found = [False]
        closed = {id(n) for d in trees.walk(tree) if d is not tree and
                  isinstance(d, (gast.FunctionDef, gast.Lambda)) for n in trees.walk(d)}

        def flag(value: bool, at):
            return trees.located(gast.Assign([gast.Name(name, gast.Store(), None, None)],
                                             gast.Constant(value, None), None), at)

        def rewrite(block: list) -> list:
            nonlocal name
            out = []
            for stmt in block:
                _rewrite_blocks(stmt, rewrite)
                if id(stmt) in closed:
                    out.append(stmt)
                    continue
                value = stmt.value if isinstance(stmt, gast.Assign) and \
                    len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) else None
                if isinstance(value, gast.IfExp) and \
                        self._arm_view(value.body) is not None and \
                        self._arm_view(value.body) == self._arm_view(value.orelse) and not (
                            isinstance(value.test, gast.Name) and
                            self.bound[value.test.id] == 1):
                    name = self.temp()
                    out.append(trees.located(gast.Assign(
                        [gast.Name(name, gast.Store(), None, None)], value.test, None), stmt))
                    value.test = gast.Name(name, gast.Load(), None, None)
                    found[0] = True
                elif isinstance(stmt, gast.If) and stmt.body and stmt.orelse and all(
                        isinstance(s, gast.Assign) and len(s.targets) == 1 and
                        isinstance(s.targets[0], gast.Name)
                        for s in (stmt.body[-1], stmt.orelse[-1])) and \
                        stmt.body[-1].targets[0].id == stmt.orelse[-1].targets[0].id and \
                        self.bound[stmt.body[-1].targets[0].id] == 2 and \
                        self._arm_view(stmt.body[-1].value) is not None and \
                        self._arm_view(stmt.body[-1].value) == \
                        self._arm_view(stmt.orelse[-1].value):
                    name = self.temp()
                    first, second = stmt.body[-1], stmt.orelse[-1]
                    stmt.body[-1], stmt.orelse[-1] = flag(True, first), flag(False, second)
                    out.append(stmt)
                    stmt = trees.located(gast.Assign(first.targets, gast.IfExp(
                        gast.Name(name, gast.Load(), None, None), first.value, second.value),
                        None), first)
                    found[0] = True
                out.append(stmt)
            return out

        name = None
        tree.body = rewrite(tree.body)
        if found[0]:
            self.changed = True
        return found[0]

    def _flat_of(self, node) -> str | None:
        """``y`` for ``y.flat[i]``, ``y`` an array made here or given as one."""
        if trees.flat_item(node) and isinstance(node.value.value, gast.Name) and \
                (node.value.value.id in self.arrays or node.value.value.id in self.given):
            return node.value.value.id
        return None

    def _flat(self, tree) -> bool:
        """``y.flat[i] = e`` (or ``op=``) written on a copy of ``y``'s items in C order,
        put back whole; ``y.flat[i]`` read as ``y.flatten()[i]`` (NumPy's flat iterator
        indexes the items in C order, whatever the array's memory, and a read copies)::

            t = y.flatten()
            t[i] = e
            y[...] = t.reshape(y.shape)
        """
        found = [False]
        closed = {id(n) for d in trees.walk(tree) if d is not tree and
                  isinstance(d, (gast.FunctionDef, gast.Lambda)) for n in trees.walk(d)}

        def flattened(name):
            return gast.Call(gast.Attribute(gast.Name(name, gast.Load(), None, None),
                                            "flatten", gast.Load()), [], [])

        def rewrite(block: list) -> list:
            out = []
            for stmt in block:
                _rewrite_blocks(stmt, rewrite)
                target = stmt.targets[0] if isinstance(stmt, gast.Assign) and \
                    len(stmt.targets) == 1 else stmt.target \
                    if isinstance(stmt, gast.AugAssign) else None
                array = self._flat_of(target) if id(stmt) not in closed else None
                if array is None:
                    out.append(stmt)
                    continue
                if any(isinstance(n, gast.Call) for n in trees.walk(target.slice)):
                    self.refuse_chain(target)  # (its index is read twice below: no calls)
                found[0] = True
                name, value = self.temp(), self.temp()
                item = gast.Subscript(gast.Name(name, gast.Load(), None, None),
                                      target.slice, gast.Store())
                shown = f"`{array}.flat[{gast.unparse(target.slice).strip()}] " \
                    f"{'=' if isinstance(stmt, gast.Assign) else '+= (or another op=)'} ...`"
                check = gast.Expr(gast.Call(
                    gast.Name(self.helper(check_flat), gast.Load(), None, None),
                    [gast.Name(value, gast.Load(), None, None),
                     gast.Subscript(gast.Name(name, gast.Load(), None, None),
                                    trees.clone(target.slice), gast.Load()),
                     gast.Constant(shown, None),
                     gast.Constant("Give the value the items' shape (or one number): "
                                   "`np.resize(v, n)` repeats it as the flat iterator "
                                   "does.", None)], []))
                back = gast.Call(gast.Attribute(gast.Name(name, gast.Load(), None, None),
                                                "reshape", gast.Load()), [gast.Attribute(
                    gast.Name(array, gast.Load(), None, None), "shape", gast.Load())], [])
                out += [trees.located(s, stmt) for s in (
                    gast.Assign([gast.Name(name, gast.Store(), None, None)],
                                flattened(array), None),
                    gast.Assign([gast.Name(value, gast.Store(), None, None)], stmt.value,
                                None),
                    check,
                    gast.Assign([item], gast.Name(value, gast.Load(), None, None), None)
                    if isinstance(stmt, gast.Assign)
                    else gast.AugAssign(item, stmt.op, gast.Name(value, gast.Load(), None, None)),
                    gast.Assign([gast.Subscript(gast.Name(array, gast.Load(), None, None),
                                                gast.Constant(Ellipsis, None), gast.Store())],
                                back, None))]
            return out

        tree.body = rewrite(tree.body)
        for node in trees.walk(tree):  # (reads: y.flat[i] -> y.flatten()[i], a copy)
            if isinstance(node, gast.Subscript) and id(node) not in closed and \
                    self._flat_of(node) is not None and isinstance(node.ctx, gast.Load):
                node.value = flattened(node.value.value.id)
                found[0] = True
        if found[0]:
            self.changed = True
        return found[0]

    def _facts(self, tree) -> None:
        bound = collections.Counter()  # (not `v += e`: an update of v, not a new value)
        augmented = {id(s.target) for s in trees.walk(tree) if isinstance(s, gast.AugAssign)}
        for n in trees.walk(tree):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and \
                    id(n) not in augmented:
                bound[n.id] += 1
        for arg in tree.args.args + tree.args.kwonlyargs:
            bound[arg.id] += 1
        self.bound, self.augmented = bound, augmented
        self.closed = {n.id for d in trees.walk(tree) if d is not tree and
                       isinstance(d, (gast.FunctionDef, gast.Lambda))
                       for n in trees.walk(d) if isinstance(n, gast.Name)}
        self.given = {p: n for p, n in self.given.items() if bound[p] == 1}
        self.contiguous = set()  # arrays made C-contiguous (np.zeros(...)): reshape, a view
        self.arrays = self._arrays(tree, bound)
        self.ndims = dict(self.arrays)
        self.tree_of = [tree]

    @staticmethod
    def _chained(tree) -> list:
        """The targets ``a[i][j]`` of the tree's assignments."""
        return [t for s in trees.walk(tree) if isinstance(s, (gast.Assign, gast.AugAssign))
                for t in (s.targets if isinstance(s, gast.Assign) else [s.target])
                if isinstance(t, gast.Subscript) and _chain(t) is not None and
                len(_chain(t)[1]) > 1]

    def _find(self, block: list) -> None:
        for at, stmt in enumerate(block):
            if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                continue
            self._copy(stmt)
            self._view(stmt, block[at + 1:])
            for field in _BLOCKS:
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    self._find(inner)

    def _advanced(self, item) -> bool:
        """Is ``item`` an index NumPy copies by: a list, a mask, an array made here?"""
        return isinstance(item, (gast.List, gast.Compare)) or isinstance(item, gast.Name) \
            and (item.id in self.arrays or item.id in self.given)

    def _copy(self, stmt) -> None:
        """``v = y[[0, 2]]`` or ``v = y[y > 0]``, ``y`` an array made here: NumPy copies
        (an index of a list or a mask), so ``v`` shares no memory with ``y``; said with
        ``.copy()``, which the alias analysis reads as a new array."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and
                isinstance(stmt.value, gast.Subscript) and
                isinstance(stmt.value.value, gast.Name) and
                (stmt.value.value.id in self.arrays or stmt.value.value.id in self.given) and
                any(self._advanced(i) for i in _items(stmt.value.slice))):
            return
        stmt.value = gast.Call(gast.Attribute(stmt.value, "copy", gast.Load()), [], [])
        self.changed = True

    def _view(self, stmt, region: list) -> None:
        """Note ``stmt`` (``v = y[i]``) as a view read again in ``region`` where safe."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name)):
            return
        value = stmt.value
        if isinstance(value, gast.Name):  # (b = y: the same array under another name)
            base, index = value.id, None
        elif isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                value.func.attr == "view" and isinstance(value.func.value, gast.Name) and \
                not value.args and not value.keywords:
            base, index = value.func.value.id, None  # (y.view(): all of y, its dtype)
        elif isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            base, index = value.value.id, value.slice
        elif isinstance(value, gast.Attribute) and value.attr == "T" and \
                isinstance(value.value, gast.Name):
            base, index = value.value.id, "T"  # (t = y.T: its axes reversed)
        elif isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                value.func.attr == "reshape" and isinstance(value.func.value, gast.Name) and \
                value.func.value.id in self.contiguous and not value.keywords and \
                value.args and all(_scalar(a) or isinstance(a, gast.Tuple) and
                                   all(_scalar(e) for e in a.elts) for a in value.args):
            base, index = value.func.value.id, _Reshaped(value.args)  # (C order: a view)
        elif isinstance(value, gast.IfExp) and isinstance(value.test, gast.Name) and \
                isinstance(value.body, gast.Subscript) and \
                isinstance(value.orelse, gast.Subscript) and \
                isinstance(value.body.value, gast.Name) and \
                isinstance(value.orelse.value, gast.Name) and \
                value.body.value.id == value.orelse.value.id and \
                self.bound[value.test.id] <= 2:  # (a flag of _choices: one per arm)
            base, index = value.body.value.id, _Chosen(value.test, value.body.slice,
                                                       value.orelse.slice)
        elif self._raveled(value) is not None:  # (y.ravel(), np.ravel(y): y.reshape(-1))
            base, index = self._raveled(value), _Reshaped([gast.Constant(-1, None)])
        elif isinstance(value, gast.Call) and len(value.args) == 2 and not value.keywords \
                and isinstance(value.args[0], gast.Name) and \
                value.args[0].id in self.contiguous and \
                self._function_of(value) is np.reshape and (
                    _scalar(value.args[1]) or isinstance(value.args[1], gast.Tuple) and
                    all(_scalar(e) for e in value.args[1].elts)):
            base, index = value.args[0].id, _Reshaped([value.args[1]])  # np.reshape(y, s)
        else:
            return
        name, extra = stmt.targets[0].id, [] if index is None else [index]
        if base in self.views and any(isinstance(i, _Reshaped) for i in self.views[base][1]):
            return  # (a view of a reshaped view: not followed)
        if base in self.views:
            root, indices = self.views[base][0], self.views[base][1] + extra
        elif base in self.arrays:
            root, indices = base, extra
        else:
            return
        arms = [index.a, index.b] if isinstance(index, _Chosen) else \
            [] if index is None else [index]
        if self.bound[name] != 1 or name in self.closed or name in self.arrays or any(
                not _basic(arm, self.ints) or self._may_be_number(base, arm) or
                any(self._advanced(i) for i in _items(arm)) for arm in arms):
            return  # (`a = z[2]` may be a number: a copy, which a write to z leaves alone)
        inside = {id(n) for s in region for n in trees.walk(s)}
        if any(id(n) not in inside for n in trees.walk(self.tree_of[0])
               if isinstance(n, gast.Name) and n.id == name and n is not stmt.targets[0]):
            return  # (read before its line, or outside its block)
        names = {root} | {n.id for i in indices if i != "T"
                          for part in (i.args if isinstance(i, _Reshaped) else
                                       i.parts() if isinstance(i, _Chosen) else [i])
                          for n in trees.walk(part) if isinstance(n, gast.Name)}
        for node in (n for s in region for n in trees.walk(s)):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and \
                    node.id in names and not (node.id == root and id(node) in self.augmented):
                return  # (the array or an index bound again: the view keeps the old)
            if isinstance(node, gast.Call) and self._mutated(node, name):
                return
        self.ndims[name] = self.ndims.get(base) if index is None else \
            _ndim(self.ndims.get(base), index)
        self.views[name] = (root, indices)

    def _raveled(self, value) -> str | None:
        """``y`` for ``y.ravel()`` or ``np.ravel(y)``, ``y`` made C-contiguous here: NumPy
        gives a view then (``y.reshape(-1)``), a copy only of an array not contiguous."""
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                value.func.attr == "ravel" and isinstance(value.func.value, gast.Name) and \
                value.func.value.id in self.contiguous and not value.args and \
                not value.keywords:
            return value.func.value.id
        if isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords and \
                isinstance(value.args[0], gast.Name) and value.args[0].id in self.contiguous \
                and self._function_of(value) is np.ravel:
            return value.args[0].id
        return None

    def _may_be_number(self, base: str, index) -> bool:
        dims = _array_dims(index)
        return dims is not None and (self.ndims.get(base) is None or
                                     self.ndims[base] <= dims)

    @staticmethod
    def _mutated(call, name: str) -> bool:
        """Does ``call`` change ``name`` in place by a method or an ``out=``?"""
        func = call.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                func.value.id == name:
            unbound = getattr(np.ndarray, func.attr, None)
            method = registry.facts(unbound) if unbound is not None else None
            if method is not None and 0 in method.mutates:  # (x.fill(0.0), x.sort())
                return True
        return any(k.arg == "out" and any(isinstance(n, gast.Name) and n.id == name
                                          for n in trees.walk(k.value))
                   for k in call.keywords)

    # --- the rewrite ------------------------------------------------------------------

    def _index_value(self, index):
        """``index`` as an expression: ``np.s_[1:]`` where it holds a slice."""
        if index == "T":
            return gast.Name(self.helper(Transposed), gast.Load(), None, None)
        if isinstance(index, _Chosen):  # (np.s_[1:] if flag else np.s_[:2])
            return gast.IfExp(trees.clone(index.test), self._index_value(index.a),
                              self._index_value(index.b))
        index = trees.clone(index)
        items = index.elts if isinstance(index, gast.Tuple) else [index]
        if not any(isinstance(i, gast.Slice) for i in items):
            return index
        s_ = gast.Attribute(gast.Name(self.numpy_name, gast.Load(), None, None), "s_",
                            gast.Load())
        return gast.Subscript(s_, index, gast.Load())

    def _store(self, target):
        """The target ``y[view_index(y, ...)]`` for ``target`` (a chain on a view or an
        array of these), else None."""
        found = _chain(target)
        if found is None:
            return None
        name, indices = found
        if name in self.views:
            root, before = self.views[name]
            indices = before + indices
        elif name in self.arrays:
            root = name
        else:
            if len(indices) > 1:
                self.refuse_chain(target)
            return None
        if any(isinstance(i, _Reshaped) for i in indices):
            self.refuse_chain(target)  # (z.T[1] = e, z a reshape: not followed)
        if len(indices) == 1 and indices[0] != "T" and not isinstance(indices[0], _Chosen):
            index = self.visit(trees.clone(indices[0]))
            return None if root == name else \
                gast.Subscript(gast.Name(root, gast.Load(), None, None), index, gast.Store())
        self.indices = [gast.Name(root, gast.Load(), None, None)] + [
            self._index_value(i if i == "T" else _Chosen(
                i.test, self.visit(trees.clone(i.a)), self.visit(trees.clone(i.b)))
                if isinstance(i, _Chosen) else self.visit(trees.clone(i))) for i in indices]
        call = gast.Call(self._helper(view_index), trees.clone(self.indices), [])
        return gast.Subscript(gast.Name(root, gast.Load(), None, None), call, gast.Store())

    def _helper(self, function):
        return gast.Name(self.helper(function), gast.Load(), None, None)

    def _value(self, value, target):
        """``value`` in the array's order, for a store through a transposed view:
        ``np.transpose(np.broadcast_to(value, view_shape(...)), view_axes(...))``."""
        if not any(i == "T" for i in _chain(target)[1]) and not (
                _chain(target)[0] in self.views and "T" in self.views[_chain(target)[0]][1]):
            return value
        np_ = gast.Name(self.numpy_name, gast.Load(), None, None)
        shaped = gast.Call(gast.Attribute(np_, "broadcast_to", gast.Load()), [value, gast.Call(
            self._helper(view_shape), trees.clone(self.indices), [])], [])
        return gast.Call(gast.Attribute(trees.clone(np_), "transpose", gast.Load()), [
            shaped, gast.Call(self._helper(view_axes), trees.clone(self.indices), [])], [])

    def _reshaped(self, node, target, op=None):
        """``v[i] = e`` (or ``op=``), ``v = y.reshape(2, 3)``: the view copied, written,
        and put back whole (``y[...] = t.reshape(y.shape)``): a reshape's items are not
        a basic index of ``y``. None where ``target`` is no such view's."""
        found = _chain(target)
        if found is None or found[0] not in self.views or self.temp is None or \
                not isinstance((self.views[found[0]][1] or [None])[0], _Reshaped):
            return None
        root, before = self.views[found[0]]
        rest = before[1:] + found[1]
        if len(rest) != 1 or rest[0] == "T":
            return None  # (a.T[0] = e: refused as an item of an item)
        name = self.temp()
        load = gast.Name(name, gast.Load(), None, None)
        copied = gast.Call(gast.Attribute(before[0].call(gast.Name(root, gast.Load(), None,
                                                                    None)), "copy",
                                          gast.Load()), [], [])
        item = gast.Subscript(trees.clone(load), self.visit(trees.clone(rest[0])),
                              gast.Store())
        value = self.visit(node.value)
        back = gast.Call(gast.Attribute(trees.clone(load), "reshape", gast.Load()), [
            gast.Attribute(gast.Name(root, gast.Load(), None, None), "shape", gast.Load())], [])
        return [trees.located(stmt, node) for stmt in (
            gast.Assign([gast.Name(name, gast.Store(), None, None)], copied, None),
            gast.Assign([item], value, None) if op is None else gast.AugAssign(item, op, value),
            gast.Assign([gast.Subscript(gast.Name(root, gast.Load(), None, None),
                                        gast.Constant(Ellipsis, None), gast.Store())],
                        back, None))]

    def visit_Assign(self, node):
        if len(node.targets) == 1:
            written = self._reshaped(node, node.targets[0])
            if written is not None:
                return written
            store = self._store(node.targets[0])
            if store is not None:
                value = self._value(self.visit(node.value), node.targets[0])
                return trees.located(gast.Assign([store], value, None), node)
        return self.generic_visit(node)

    def visit_AugAssign(self, node):
        target = node.target
        if isinstance(target, gast.Name) and target.id in self.views:
            target = gast.Subscript(gast.Name(target.id, gast.Load(), None, None),
                                    gast.Constant(Ellipsis, None), gast.Store())
        written = self._reshaped(node, target, node.op)
        if written is not None:
            return written
        store = self._store(target)  # (v += e: v[...] += e, the whole view)
        if store is None:
            return self.generic_visit(node)
        value = self._value(self.visit(node.value), target)
        return trees.located(gast.AugAssign(store, node.op, value), node)

    def visit_Name(self, node):
        if node.id not in self.views or not isinstance(node.ctx, gast.Load):
            return node
        root, indices = self.views[node.id]
        value = gast.Name(root, gast.Load(), None, None)
        for index in indices:
            value = gast.Attribute(value, "T", gast.Load()) if index == "T" else \
                index.call(value) if isinstance(index, _Reshaped) else \
                gast.IfExp(trees.clone(index.test),
                           gast.Subscript(value, trees.clone(index.a), gast.Load()),
                           gast.Subscript(trees.clone(value), trees.clone(index.b),
                                          gast.Load())) if isinstance(index, _Chosen) else \
                gast.Subscript(value, trees.clone(index), gast.Load())
        return trees.located(value, node)

    def visit_FunctionDef(self, node):
        return node  # (a nested function: its own names)

    def visit_Lambda(self, node):
        return node


def _is_name(node, name: str) -> bool:
    return isinstance(node, gast.Name) and node.id == name


def _load(name: str):
    return gast.Name(name, gast.Load(), None, None)


def _store(name: str):
    return gast.Name(name, gast.Store(), None, None)
