"""Rewrite sugar into the small set of primitives the reverse pass knows.

``+x`` becomes ``x``, annotated assignments plain ones, and array methods and
``.T`` become calls of the matching NumPy function, so one rule serves both.

>>> import gast
>>> tree = gast.parse("def f(x):\\n    x += 1\\n    y = x.sum(axis=0) + x.T\\n    return +y").body[0]
>>> print(gast.unparse(Desugar("np", {"x", "y"}).visit(tree)))  # doctest: +NORMALIZE_WHITESPACE
def f(x):
    x += 1
    y = np.sum(x, axis=0) + np.transpose(x)
    return y
>>> tree = gast.parse("def f(x):\\n    return x.flatten().item(2) + x.copy().sum()").body[0]
>>> print(gast.unparse(Desugar("np", {"x"}).visit(tree)).splitlines()[1].strip())
return np.ravel(np.ravel(x))[2] + np.sum(np.copy(x))
"""

from __future__ import annotations

import inspect

import gast
import numpy as np

from .. import registry, trees


def array_function(attr: str, called: bool = True) -> str:
    """The name of the NumPy function that the array method ``attr`` is (``called``), or
    the array attribute ``attr`` (not ``called``), by its ``method`` fact; ``""`` if none.

    >>> array_function("sum"), array_function("T", called=False), array_function("T")
    ('sum', 'transpose', '')
    """
    member = getattr(np.ndarray, attr, None)
    facts = registry.facts(member) if member is not None else None
    if facts is None or called == inspect.isdatadescriptor(member):
        return ""
    return facts.method


def array_members(called: bool = True) -> list[str]:
    """The array methods (``called``) or attributes rewritten into NumPy functions.

    >>> array_members(called=False)
    ['T', 'imag', 'real']
    """
    return sorted(name for name in dir(np.ndarray) if array_function(name, called))


def namespace_variables(tree, local_names: set[str], numpy_name: str, resolve) -> dict:
    """The variables of ``tree`` (a function) that hold a module, each assigned only that
    module (``xp = np``) or an array namespace (``xp = array_namespace(x)``, a function of
    the ``namespace`` fact: NumPy's for the arrays s2sad differentiates), with the
    expression each stands for: ``{"xp": Name(numpy_name)}``. Their attributes are then the
    module's functions (``xp.sum(v, axis=0)``), not an array's methods.

    >>> import numpy as np
    >>> tree = gast.parse("def f(x):\\n    xp = np\\n    return xp.sum(x)").body[0]
    >>> {name: gast.unparse(v) for name, v in namespace_variables(
    ...     tree, {"x", "xp"}, "np", {"np": np}.__getitem__).items()}
    {'xp': 'np'}
    """
    import types
    params = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs
              if isinstance(a, gast.Name)}
    for extra in (tree.args.vararg, tree.args.kwarg):
        if isinstance(extra, gast.Name):
            params.add(extra.id)

    def value_of(node):
        path = []
        while isinstance(node, gast.Attribute):
            path.append(node.attr)
            node = node.value
        if not isinstance(node, gast.Name) or node.id in local_names:
            raise KeyError(node)
        value = resolve(node.id)
        for attr in reversed(path):
            value = getattr(value, attr)
        return value

    def namespace(value):
        try:
            if isinstance(value, (gast.Name, gast.Attribute)) and \
                    isinstance(value_of(value), types.ModuleType):
                return value
            if isinstance(value, gast.Call) and numpy_name not in local_names:
                facts = registry.facts(value_of(value.func))
                if facts is not None and facts.namespace:
                    return gast.Name(numpy_name, gast.Load(), None, None)
        except (KeyError, AttributeError, TypeError):
            pass
        return None

    found, refused = {}, set(params)
    for node in trees.walk(tree):
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            refused.update(node.names)
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            name = node.targets[0].id
            expression = namespace(node.value)
            if expression is None or name in found and \
                    gast.dump(found[name]) != gast.dump(expression):
                refused.add(name)
            else:
                found[name] = expression
            continue
        if isinstance(node, gast.Assign):
            targets = node.targets
        elif isinstance(node, (gast.AugAssign, gast.AnnAssign, gast.For, gast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, gast.NamedExpr):
            targets = [node.target]
        else:
            targets = []
        for target in targets:
            refused.update(n.id for n in trees.walk(target) if isinstance(n, gast.Name))
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Del):
            refused.add(node.id)
        if isinstance(node, (gast.FunctionDef, gast.ClassDef)) and node is not tree:
            refused.add(node.name)
    # (a name also bound otherwise: by a with, an except, an import, a comprehension)
    stores = {}
    for node in trees.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    assigns = {}
    for node in trees.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            assigns[node.targets[0].id] = assigns.get(node.targets[0].id, 0) + 1
    return {name: expression for name, expression in found.items()
            if name not in refused and stores.get(name) == assigns.get(name)}


def _located(tree, where):
    """``tree`` with every node placed at ``where`` (the user's line)."""
    for node in trees.walk(tree):
        if hasattr(node, "lineno") or isinstance(node, (gast.expr, gast.stmt)):
            gast.copy_location(node, where)
    return tree


def _changes_an_array(method: str) -> bool:
    """Does the array method of that name change the array in place (its rule entry's
    facts: ``fill``, ``sort``, ``put``...)?"""
    facts = registry.facts(getattr(np.ndarray, method, None))
    return facts is not None and 0 in facts.mutates


def _updates_in_place(tree) -> bool:
    """Does ``tree`` change an array in place itself (``a[1] = v``, ``a += v``,
    ``a.fill(v)``, ``out=``)? Then ``x.flatten()`` is written ``np.copy(np.ravel(x))``: a
    new array, as NumPy makes it, not ``np.ravel``'s view (which the update would change)."""
    for node in trees.walk(tree):
        if isinstance(node, gast.AugAssign) or isinstance(node, (gast.Subscript, gast.Attribute)) \
                and isinstance(node.ctx, (gast.Store, gast.Del)) or \
                isinstance(node, gast.keyword) and node.arg == "out" or \
                isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                _changes_an_array(node.func.attr):
            return True
    return False


class Desugar(trees.Transformer):
    """``builtin(name)``: does ``name`` stand for the builtin of that name there (not a
    global or a local of the user's)? ``max(a, b, c)`` is then ``max(max(a, b), c)``."""

    def __init__(self, numpy_name: str, local_names: set[str], builtin=None, resolve=None,
                 source=None, helper=None):
        self.helper = helper  # (a runtime helper -> its name in the generated code)
        self.source = source  # (a generator held in a name and read twice: refused there)
        self.numpy_name = numpy_name
        self.local_names = local_names
        self.builtin = builtin or (lambda name: False)
        self.resolve = resolve  # a free name's value (KeyError: none), to read namespaces
        self.namespaces: dict | None = None

    def visit_FunctionDef(self, node):
        if self.namespaces is None:  # (the function itself: its variables of a module)
            from .written_outputs import OutputsAsAssignments  # np.copyto(y, v): y[...] = v
            node = OutputsAsAssignments(self._value, self.numpy_name).visit(node)
            from .grown_walks import GrownWalks  # for v in xs: xs.append(...): a while loop
            node = GrownWalks(self.builtin, self.source).visit(node)
            from .vectorized import VectorizedCalls  # np.vectorize(f)(a): f item by item
            node = VectorizedCalls(self._value, self.numpy_name, self.builtin).visit(node)
            self.updates = _updates_in_place(node)  # (x.flatten(): a copy, where one shows)
            self.namespaces = namespace_variables(node, self.local_names, self.numpy_name,
                                                  self.resolve) if self.resolve else {}
            from .held_generators import moved  # g = (e for v in xs); sum(g): moved to sum
            from .held_generators import taken  # it = iter(xs); a = next(it): items taken
            self._refuse_held_iterators(node)  # m = itertools.accumulate(xs): refused
            if self.source is not None and getattr(self.source, "func", None) is not None:
                from .local_objects import objects_as_variables  # acc = Acc(2.0): its
                node = objects_as_variables(node, self.source,  # attributes as variables
                                            self.helper)
                self.local_names |= trees.assigned_names(node)
            return moved(taken(self.generic_visit(node), self.builtin), self.source)
        return self.generic_visit(node)

    def _listed_pairs(self, node):
        """``min(enumerate(e), key=k)``, ``sorted(zip(a, b))``: the pairs as a list
        comprehension, ``min([(i, v) for i, v in enumerate(e)], key=k)`` (each consumes
        them at once: the same items, in the same order); ``dict(zip(ks, vs))`` as ``{k: v
        for k, v in zip(ks, vs)}``. Else None."""
        func = node.func
        if not (isinstance(func, gast.Name) and func.id in ("min", "max", "sorted", "dict") and
                func.id not in self.local_names and self.builtin(func.id) and node.args and
                isinstance(node.args[0], gast.Call)):
            return None
        inner = node.args[0]
        walker = inner.func.id if isinstance(inner.func, gast.Name) and \
            inner.func.id in ("enumerate", "zip") and \
            inner.func.id not in self.local_names and self.builtin(inner.func.id) else None
        if walker is None or not inner.args or \
                any(isinstance(a, gast.Starred) for a in inner.args) or \
                any(k.arg not in ("start", "strict") for k in inner.keywords):
            return None
        width = 2 if walker == "enumerate" else len(inner.args)
        if func.id == "dict" and (width != 2 or len(node.args) != 1 or node.keywords or
                                  walker == "zip" and
                                  isinstance(inner.args[1], (gast.List, gast.Tuple))):
            return None  # (dict(zip(ks, [a, b])): keys and values paired where written)
        self.pairs = getattr(self, "pairs", 0) + 1
        names = [f"_pair{self.pairs}_{k}" for k in range(width)]
        if set(names) & self.local_names:
            return None

        def load(name):
            return gast.Name(name, gast.Load(), None, None)
        target = gast.Tuple([gast.Name(n, gast.Store(), None, None) for n in names],
                            gast.Store())
        walk = [gast.comprehension(target, inner, [], 0)]
        if func.id == "dict":
            made = gast.DictComp(load(names[0]), load(names[1]), walk)
        else:
            made = gast.ListComp(gast.Tuple([load(n) for n in names], gast.Load()), walk)
        for n in trees.walk(made):
            if isinstance(n, gast.expr):
                gast.copy_location(n, inner)
        if func.id == "dict":
            return gast.copy_location(made, node)
        node.args = [made] + node.args[1:]
        return node

    def _value(self, node):
        """The object a free dotted name is (``itertools.accumulate``), else None."""
        path = []
        while isinstance(node, gast.Attribute):
            path.append(node.attr)
            node = node.value
        if not isinstance(node, gast.Name) or node.id in self.local_names or not self.resolve:
            return None
        try:
            value = self.resolve(node.id)
        except KeyError:
            return None
        for attr in reversed(path):
            value = getattr(value, attr, None)
        return value

    def _facts(self, func) -> registry.Facts | None:
        try:
            return registry.facts(self._value(func))
        except TypeError:  # (an unhashable value)
            return None

    def _refuse_held_iterators(self, fdef):
        """A call of a function whose ``iterator`` fact says its definition computes the
        items at once, taken only where they are consumed at once: the iterable of a loop,
        a comprehension or an unpacking, or given to ``list``, ``sum`` and the like (the
        ``sequence`` and ``items`` facts). Held in a name, it would give its items to each
        reader, where Python's iterator gives them once."""
        if self.source is None:
            return
        consumed = set()
        for node in trees.walk(fdef):
            if isinstance(node, (gast.For, gast.comprehension)):
                consumed.add(id(node.iter))
            elif isinstance(node, gast.Assign) and \
                    isinstance(node.targets[0], (gast.Tuple, gast.List)):
                consumed.add(id(node.value))
            elif isinstance(node, gast.Call) and node.args and \
                    (found := self._facts(node.func)) is not None and \
                    (found.sequence or found.items):
                consumed.add(id(node.args[0]))
        for node in trees.walk(fdef):
            if isinstance(node, gast.Call) and id(node) not in consumed and \
                    (found := self._facts(node.func)) is not None and found.iterator:
                raise self.source.syntax_error(
                    "an iterator held, or given on, where it is not consumed at once", node,
                    "Take its items where it is made: `list(...)`, or loop over the call "
                    "itself (`for v in ...`).")

    def visit_Assign(self, node):
        if self.namespaces and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name) and node.targets[0].id in self.namespaces:
            return gast.copy_location(gast.Pass(), node)  # xp = array_namespace(x): xp is np
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            made = self._map(node.value)  # m = map(f, xs): a generator expression, held
            if made is not node.value:
                made.fixed_names = [n.id for n in trees.walk(node.value.args[0])
                                    if isinstance(n, gast.Name)]  # (read once by map)
                node.value = made
        return self.generic_visit(node)

    def visit_Name(self, node):
        if self.namespaces and isinstance(node.ctx, gast.Load) and node.id in self.namespaces:
            return gast.copy_location(trees.clone(self.namespaces[node.id]), node)
        return node

    def _np(self, name: str, node) -> gast.Attribute:
        ref = gast.Attribute(gast.Name(self.numpy_name, gast.Load(), None, None), name, gast.Load())
        return gast.copy_location(ref, node)

    def visit_Assert(self, node):
        """``assert c, m`` is ``if not c: raise AssertionError(m)``, run in the forward sweep
        as Python runs it; under ``python -O`` there is no statement at all."""
        if not __debug__:
            return gast.copy_location(gast.Pass(), node)
        self.generic_visit(node)
        error = gast.Name("AssertionError", gast.Load(), None, None)
        if node.msg is not None:
            error = gast.Call(error, [node.msg], [])
        test = gast.UnaryOp(gast.Not(), node.test)
        return gast.copy_location(gast.If(test, [gast.copy_location(gast.Raise(error, None), node)],
                                          []), node)

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        return gast.copy_location(gast.Assign([node.target], node.value, None), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.UAdd):
            return node.operand
        return node

    def _map(self, node):
        """``map(f, xs, ys)`` consumed where it is made (an argument, a loop's iterable):
        the generator expression ``(f(a, b) for a, b in zip(xs, ys))``, which Python
        evaluates alike, one item at a time; ``map(lambda v: e, xs)`` is ``(e for v in
        xs)``. Anything else is left as it is."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and
                node.func.id == "map" and node.func.id not in self.local_names and
                self.builtin("map") and len(node.args) >= 2 and not node.keywords and
                not any(isinstance(a, gast.Starred) for a in node.args)):
            return node
        function, iterables = node.args[0], node.args[1:]
        if len(iterables) > 1 and not ("zip" not in self.local_names and self.builtin("zip")):
            return node
        if isinstance(function, gast.Lambda):
            params = function.args
            if params.vararg or params.kwarg or params.kwonlyargs or params.defaults or \
                    params.posonlyargs or len(params.args) != len(iterables):
                return node
            names = [a.id for a in params.args]
            element = function.body
        elif isinstance(function, (gast.Name, gast.Attribute)) or self._partial(function):
            taken = {n.id for n in trees.walk(function) if isinstance(n, gast.Name)}
            names = []
            while len(names) < len(iterables):
                name = f"map_item_{len(names) + len(taken)}"
                taken.add(name)
                names.append(name)
            element = gast.Call(function, [gast.Name(n, gast.Load(), None, None)
                                           for n in names], [])
        else:
            return node
        stored = [gast.Name(n, gast.Store(), None, None) for n in names]
        target = stored[0] if len(stored) == 1 else gast.Tuple(stored, gast.Store())
        source = iterables[0] if len(iterables) == 1 else gast.Call(
            gast.Name("zip", gast.Load(), None, None), list(iterables), [])
        made = gast.GeneratorExp(element, [gast.comprehension(target, source, [], 0)])
        return _located(made, node)

    def _partial(self, node) -> bool:
        """Is ``node`` ``functools.partial(f, a, ...)`` of names and constants (made again
        for each item, the same function)?"""
        import functools
        if not isinstance(node, gast.Call) or self.resolve is None or not all(
                isinstance(a, (gast.Name, gast.Attribute, gast.Constant))
                for a in [node.func] + node.args + [k.value for k in node.keywords]):
            return False
        path, root = [], node.func
        while isinstance(root, gast.Attribute):
            path.append(root.attr)
            root = root.value
        if not isinstance(root, gast.Name) or root.id in self.local_names:
            return False
        try:
            value = self.resolve(root.id)
            for attr in reversed(path):
                value = getattr(value, attr)
        except (KeyError, AttributeError):
            return False
        return value is functools.partial

    def visit_For(self, node):
        iterated = self._map(node.iter)
        read = {n.id for n in trees.walk(iterated.elt) if isinstance(n, gast.Name)} \
            if iterated is not node.iter else set()
        stored = {n.id for stmt in node.body + node.orelse for n in trees.walk(stmt)
                  if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        if not read & stored:  # (map reads its function once: a loop that gives one of
            node.iter = iterated  # its names another value keeps the map, refused)
        return self.generic_visit(node)

    def visit_comprehension(self, node):
        node.iter = self._map(node.iter)
        return self.generic_visit(node)

    def visit_Call(self, node):
        node.args = [self._map(a) for a in node.args]
        self.generic_visit(node)
        func = node.func
        if len(node.args) == 1 and not node.keywords and \
                not isinstance(node.args[0], gast.Starred) and \
                (found := self._facts(func)) is not None and found.copies:
            # copy.copy(v), copy.deepcopy(v): v.copy(), desugared as it is (an array's copy
            # keeps its order, as __copy__; a list's or dict's holds the same items, which a
            # deep copy would copy: a change to one through the other is refused as shared)
            method = gast.Attribute(node.args[0], "copy", gast.Load())
            return self.visit_Call(gast.copy_location(
                gast.Call(gast.copy_location(method, func), [], []), node))
        listed = self._listed_pairs(node)
        if listed is not None:
            return listed
        if isinstance(func, gast.Name) and func.id == "dict" and len(node.args) <= 1 and \
                func.id not in self.local_names and self.builtin("dict") and \
                all(k.arg is not None for k in node.keywords) and \
                all(isinstance(a, (gast.Name, gast.Dict)) for a in node.args):
            # (a name: a dict, or it fails as `{**v}` would; dict(zip(...)) is left alone)
            # dict(p, W=W) is {**p, 'W': W}: a new dict (a copy of p's), read by key
            keys = [None] * len(node.args) + [gast.Constant(k.arg, None) for k in node.keywords]
            values = list(node.args) + [k.value for k in node.keywords]
            return gast.copy_location(gast.Dict(keys, values), node)
        if isinstance(func, gast.Name) and func.id in ("max", "min") and len(node.args) > 2 \
                and not node.keywords and func.id not in self.local_names and \
                not any(isinstance(a, gast.Starred) for a in node.args) and \
                self.builtin(func.id):  # max(a, b, c): two at a time, as Python compares
            pair = node.args[0]
            for arg in node.args[1:]:
                pair = gast.copy_location(gast.Call(gast.Name(func.id, gast.Load(), None, None),
                                                    [pair, arg], []), node)
            return pair
        if isinstance(func, gast.Name) and func.id == "getattr" and len(node.args) == 2 and \
                not node.keywords and func.id not in self.local_names and \
                self.builtin("getattr") and isinstance(node.args[1], gast.Constant) and \
                isinstance(node.args[1].value, str) and node.args[1].value.isidentifier():
            # getattr(x, "fill") is x.fill (then desugared as it is)
            attribute = gast.copy_location(
                gast.Attribute(node.args[0], node.args[1].value, gast.Load()), node)
            return self._attribute(attribute)
        if isinstance(func, gast.Attribute) and func.attr == "item" and not node.keywords \
                and self._is_value(func.value):
            return self._item(func.value, node)
        if isinstance(func, gast.Attribute) and func.attr == "astype" and \
                hasattr(np, "astype") and self._is_value(func.value):
            return self._astype(func.value, node)
        if isinstance(func, gast.Attribute) and array_function(func.attr) and \
                self._is_value(func.value):
            args = list(node.args)
            varargs = registry.facts(getattr(np.ndarray, func.attr)).varargs
            if len(args) > 1 and varargs and not any(isinstance(a, gast.Starred) for a in args):
                args = [gast.copy_location(gast.Tuple(args, gast.Load()), args[0])]
            call = gast.copy_location(
                gast.Call(self._np(array_function(func.attr), func), [func.value] + args, node.keywords),
                node)
            if varargs and any(isinstance(a, gast.Starred) for a in args):
                call.varargs = True  # (x.reshape(*shape): packed once its length is known)
            if func.attr == "copy":  # (a dict's or list's copy too: DictViews writes it so
                call.copied = True   # once the kinds say which)
            # (the method's facts stay with the call: a real array's x.conj() is x itself)
            call.method = getattr(np.ndarray, func.attr, None)
            if func.attr == "flatten" and getattr(self, "updates", False):
                return gast.copy_location(gast.Call(self._np("copy", func), [call], []), node)
            return call
        return node

    def _astype(self, value, node):
        """``x.astype(t)``, ``x.astype(dtype=t, copy=False)``: ``np.astype(x, t, ...)``;
        with the method's other parameters (order, casting, subok), the method itself,
        unbound: ``np.ndarray.astype(np.asarray(x), t, "C")`` (``x`` may be a NumPy scalar)."""
        keywords = {k.arg: k for k in node.keywords}
        args = list(node.args)
        if len(args) + ("dtype" in keywords) == 1 and set(keywords) <= {"dtype", "copy"} and \
                not any(isinstance(a, gast.Starred) for a in args):
            dtype = args[0] if args else keywords["dtype"].value
            rest = [k for k in node.keywords if k.arg != "dtype"]
            return gast.copy_location(gast.Call(self._np("astype", node.func), [value, dtype],
                                                rest), node)
        method = gast.Attribute(self._np("ndarray", node.func), "astype", gast.Load())
        array = gast.copy_location(gast.Call(self._np("asarray", node.func), [value], []), node)
        return gast.copy_location(gast.Call(gast.copy_location(method, node.func),
                                            [array] + args, node.keywords), node)

    def _item(self, value, node):
        """``x.item()`` is ``np.reshape(x, (1,))[0]`` (which raises, as ``item`` does, where
        ``x`` holds more than one element), ``x.item(i)`` is ``np.ravel(x)[i]`` and
        ``x.item(i, j)`` is ``x[i, j]``: the element (a NumPy scalar rather than a Python
        one, the same value), differentiable as the identity."""
        args = list(node.args)
        if len(args) == 1 and isinstance(args[0], gast.Tuple):  # x.item((i, j))
            index = args[0]
        elif len(args) > 1:
            index = gast.Tuple(args, gast.Load())
        elif args:
            value = gast.Call(self._np("ravel", node), [value], [])
            index = args[0]
        else:  # (one element, or NumPy's ValueError)
            value = gast.Call(self._np("reshape", node), [value, gast.Tuple(
                [gast.Constant(1, None)], gast.Load())], [])
            index = gast.Constant(0, None)
        return gast.copy_location(gast.Subscript(value, index, gast.Load()), node)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        return self._attribute(node)

    def _attribute(self, node):
        if array_function(node.attr, called=False) and isinstance(node.ctx, gast.Load) and \
                self._is_value(node.value):
            return gast.copy_location(gast.Call(self._np(array_function(node.attr, False), node),
                                                [node.value], []), node)
        return node

    def _is_value(self, node) -> bool:
        """``x`` in ``x.sum()`` is a value; ``np`` in ``np.sum(x)`` is a module (left alone)."""
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        return not isinstance(root, gast.Name) or root.id in self.local_names
