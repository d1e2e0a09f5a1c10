"""Copying syntax trees, fast.

Every pass copies pieces of trees (a rule's expression for each statement it is
inlined into, an index read again in the reverse sweep); ``copy.deepcopy`` is
general and slow (it keeps a memo of every object). Syntax trees need much less:
a node's fields are nodes, lists of nodes, or immutable values.

>>> import gast
>>> node = gast.parse("y = x[1:2] * 2.0").body[0]
>>> other = clone(node)
>>> gast.dump(other) == gast.dump(node), other.value is node.value
(True, False)
"""

from __future__ import annotations

import ast
import contextlib
from operator import attrgetter

import gast

# the prefix of the name of a comment's placeholder statement (``__s2sad_comment_3``): a
# statement that codegen prints as a comment line, read by codegen and located
COMMENT_MARK = "__s2sad_comment_"


def clone(node):
    """A copy of ``node`` (a node, or a list of nodes) sharing no node or list with it,
    but for its contexts (``Load()``, ``Store()``) and a binary or unary operation's
    operator (``Add()``): fieldless, never changed in place, and shared by the trees
    Python's own parser makes too.

    >>> import gast
    >>> name, negation = gast.parse("x; -x").body
    >>> clone(name).value.ctx is name.value.ctx, clone(name) is name
    (True, False)
    >>> clone(negation).value.op is negation.value.op
    True
    """
    if type(node) is list:
        return [clone(item) for item in node]
    if isinstance(node, ast.AST):
        cls = node.__class__
        names = _NODE_FIELDS.get(cls)
        if names is None:
            names = node_fields(cls)
        fields = node.__dict__.copy()  # names, numbers, positions, contexts: as they are
        for field in names:
            value = fields.get(field)
            if type(value) is list:
                fields[field] = [clone(item) for item in value]
            elif isinstance(value, ast.AST):
                fields[field] = clone(value)
        new = cls.__new__(cls)
        new.__dict__ = fields
        return new
    return node


def located(new, old):
    """``gast.copy_location(new, old)``, and ``old``'s ``origin`` too (a statement inlined
    from another function of the user's: the lines that lead to it), so that a statement
    a pass writes in place of another keeps its place in the user's code."""
    gast.copy_location(new, old)
    origin = old.__dict__.get("origin")
    if origin is not None:
        new.origin = origin
    return new


# fields that never hold a node (names, flags) or hold only a context (Load, Store, Del)
# or an operator (Add, USub...: fieldless like a context, never changed in place, so shared
# by a clone; a tenth of a statement's nodes); gast's ExceptHandler.name is a Name,
# Import.names a list of alias nodes: walked
_NOT_NODES = frozenset({"id", "attr", "arg", "module", "level", "kind", "type_comment",
                        "is_async", "conversion", "ctx", "op"})
_NODE_FIELDS: dict = {}  # node class -> its fields that may hold nodes


def node_fields(node_class) -> tuple:
    """The fields of ``node_class`` that may hold nodes (not ``id``, ``ctx``...)."""
    fields = _NODE_FIELDS.get(node_class)
    if fields is None:
        fields = _NODE_FIELDS[node_class] = () if node_class.__name__ == "Constant" else \
            tuple(f for f in node_class._fields if f not in _NOT_NODES)  # (a number, a str)
    return fields


def walk(node) -> list:
    """Every node under ``node`` (itself first), breadth first: ``ast.walk``'s order, as a
    list made in one go (a generator costs twice as much on the small statements that
    the passes walk most), without the contexts (``Load()``, ``Store()``: read them as
    ``name.ctx``), a third of all nodes, nor the operators of binary and unary operations
    (read them as ``node.op``).

    >>> import gast
    >>> [type(n).__name__ for n in walk(gast.parse("y = f(x) + 1").body[0])]
    ['Assign', 'Name', 'BinOp', 'Call', 'Constant', 'Name', 'Name']

    Within :func:`kept_walks`, a whole function's walk is made once and kept.
    """
    kept = _KEPT
    if kept is not None and node.__class__ is _FunctionDef:
        held = kept.get(id(node))
        if held is not None and held[0] is node:
            return held[1].copy()  # (a list of its own: a caller may change it)
    found = [node]
    append, extend = found.append, found.extend
    quick, name_class = _QUICK, _Name
    for item in found:  # (each node appended while it runs is visited too)
        cls = item.__class__
        if cls is name_class:  # a third of all nodes: a leaf, but for a parameter's annotation
            try:
                if item.annotation is not None:
                    append(item.annotation)
            except AttributeError:  # (a Name made without one: gast.Name(x, Load()))
                pass
            continue
        try:  # (the most common nodes: their fields read in one call; in the order of
            shape, get = quick[cls]  # how common each shape is: BinOp, Assign, Call...)
            if shape is _QMANY:
                extend(get(item))
                continue
            if shape is _QLISTED:  # (Assign: targets, value)
                listed, one = get(item)
                extend(listed)
                append(one)
                continue
            if shape is _QLISTS:  # (Call: func, args, keywords)
                one, first, second = get(item)
                append(one)
                extend(first)
                extend(second)
                continue
            if shape is _QLEAF:  # (a Constant)
                continue
            append(get(item))  # (_QONE)
            continue
        except KeyError:  # (a node of another class: as below)
            pass
        except AttributeError:  # (a node made without one of its fields: as below)
            pass
        names = _WALKED.get(cls)
        if names is None:
            names = _walked(cls)
        if names:
            fields = item.__dict__
            for field, held in names:
                value = fields.get(field)
                if value is None:
                    continue
                if type(value) is list:
                    if held is _NODES:
                        extend(value)
                    else:
                        extend([v for v in value if isinstance(v, _AST)])
                elif held is not _OTHER or isinstance(value, _AST):
                    append(value)
    if kept is not None and node.__class__ is _FunctionDef:
        kept[id(node)] = (node, found.copy())  # (the node held: its id is not reused)
    return found


# id(function) -> (function, its walk), while the trees are only read (kept_walks)
_KEPT: dict | None = None
_AST, _Name, _FunctionDef, _Store = ast.AST, gast.Name, gast.FunctionDef, gast.Store


@contextlib.contextmanager
def kept_walks(kept: dict):
    """While the trees are only read, not changed (an analysis, a check), a whole
    function's :func:`walk` is made once and kept in ``kept``, for every reader after.
    The caller empties ``kept`` before anything changes a tree.

    >>> import gast
    >>> tree = gast.parse("def f(x): return x").body[0]
    >>> kept = {}
    >>> with kept_walks(kept):
    ...     first = walk(tree)
    ...     again = walk(tree)
    >>> again == first and again is not first, list(kept) == [id(tree)]
    (True, True)
    """
    global _KEPT
    before, _KEPT = _KEPT, kept
    try:
        yield kept
    finally:
        _KEPT = before


# (the tree a transform runs on, the walks kept of the trees as they were when it began),
# while the pass manager runs a transform (pass_start)
_START: tuple | None = None


@contextlib.contextmanager
def pass_start(tree, kept: dict):
    """While a transform of ``tree`` runs: :func:`start_walk` of ``tree`` finds its walk in
    ``kept`` (the walks of the trees as the pass found them), or makes it and keeps it
    there. The caller drops ``kept`` if the pass changed a tree."""
    global _START
    before, _START = _START, (tree, kept)
    try:
        yield
    finally:
        _START = before


def start_walk(node) -> list:
    """:func:`walk` of ``node``, for a pass that has not changed anything yet: where
    ``node`` is the whole tree the pass manager runs the pass on, it is walked once for
    every reader until a pass changes a tree. A pass calls it only before it changes a tree
    (at its start: a check of whether there is anything to do, counts of names).

    >>> import gast
    >>> tree = gast.parse("def f(x): return x").body[0]
    >>> kept = {}
    >>> with pass_start(tree, kept):
    ...     first = start_walk(tree)
    ...     again = start_walk(tree)
    >>> again == first and again is not first, list(kept) == [id(tree)]
    (True, True)
    """
    start = _START
    if start is None or start[0] is not node:
        return walk(node)
    kept = start[1]
    held = kept.get(id(node))
    if held is not None and held[0] is node:
        return held[1].copy()
    found = walk(node)
    kept[id(node)] = (node, found.copy())
    return found


# the lists that hold nodes only, never None or a name (``Dict.keys``, ``kw_defaults`` and
# ``Global.names`` do): walked without a test of each item
_NODES_ONLY = frozenset({"body", "orelse", "finalbody", "handlers", "targets", "elts", "args",
                         "keywords", "decorator_list", "values", "comparators", "ops",
                         "generators", "ifs", "items", "cases", "patterns", "posonlyargs",
                         "kwonlyargs", "defaults"})
# the fields that hold one node or None, never a name or a number (``alias.name``,
# ``AnnAssign.simple``, ``MatchSingleton.value`` do): walked without ``isinstance``
_NODE_OR_NONE = frozenset({"annotation", "bound", "cause", "cls", "context_expr",
                           "default_value", "elt", "exc", "format_spec", "func", "guard",
                           "iter", "key", "kwarg", "left", "lower", "msg", "operand",
                           "optional_vars", "pattern", "returns", "right", "slice", "step",
                           "subject", "target", "test", "type", "upper", "value", "vararg"})
_NODES, _NODE, _OTHER = "nodes", "node", "other"  # what a field holds (_walked)
_WALKED: dict = {}  # node class -> ((field, _NODES, _NODE or _OTHER), ...)


# the most common nodes, whose fields that hold nodes are each required (no None: Python's
# grammar), read in one call (attrgetter) in order. _QMANY: two nodes or more, or one list
# of them; _QONE: one node; _QLISTED: a list, then a node; _QLISTS: a node, then two lists;
# _QLEAF: none (the walk's order and nodes are those :func:`_walked`'s fields give)
_QMANY, _QONE, _QLISTED, _QLISTS, _QLEAF = "many", "one", "listed", "lists", "leaf"
_SHAPES = {_QMANY: (gast.BinOp, gast.Subscript, gast.AugAssign, gast.Tuple, gast.List,
                    gast.BoolOp),
           _QONE: (gast.Attribute, gast.UnaryOp, gast.keyword, gast.Expr, gast.Starred),
           _QLISTED: (gast.Assign,), _QLISTS: (gast.Call, gast.Compare, gast.If),
           _QLEAF: (gast.Constant,)}


def _quick() -> dict:
    out = {}
    for shape, classes in _SHAPES.items():
        for cls in classes:
            fields = _walked(cls)
            kinds = tuple(held for _, held in fields)
            assert kinds in {_QMANY: ((_NODE, _NODE), (_NODES,)), _QONE: ((_NODE,),),
                             _QLEAF: ((),), _QLISTED: ((_NODES, _NODE),),
                             _QLISTS: ((_NODE, _NODES, _NODES),)}[shape]
            out[cls] = (shape, attrgetter(*(f for f, _ in fields)) if fields else None)
    return out


def _walked(node_class) -> tuple:
    found = _WALKED[node_class] = tuple(
        (f, _NODES if f in _NODES_ONLY else _NODE if f in _NODE_OR_NONE and
         node_class.__name__ != "MatchSingleton" else _OTHER) for f in node_fields(node_class))
    return found


_QUICK: dict = _quick()  # node class -> (its shape, a getter of its fields)


def assigned_names(tree) -> set[str]:
    """The names a function ``tree`` binds: its parameters and every name it stores to.

    >>> import gast
    >>> sorted(assigned_names(gast.parse("def f(x, *, k):\\n    y = x\\n    z[0] = y").body[0]))
    ['k', 'x', 'y']

    Within :func:`kept_walks` (the trees only read), a whole function's names are found
    once and kept, as its walk is; each caller gets a set of its own.
    """
    kept = _KEPT
    if kept is None or tree.__class__ is not _FunctionDef:
        return _assigned(tree, walk(tree))
    held = kept.get(("names", id(tree)))
    if held is not None and held[0] is tree:
        return set(held[1])
    names = _assigned(tree, walk(tree))
    kept[("names", id(tree))] = (tree, frozenset(names))  # (the tree held: its id kept)
    return names


def start_names(tree) -> set[str]:
    """:func:`assigned_names` of ``tree``, for a pass that has not changed anything yet:
    where ``tree`` is the whole tree the pass manager runs the pass on, its names are
    found once for every reader until a pass changes a tree (as :func:`start_walk`).

    >>> import gast
    >>> tree = gast.parse("def f(x):\\n    y = x").body[0]
    >>> kept = {}
    >>> with pass_start(tree, kept):
    ...     first = start_names(tree)
    ...     first.add("z")  # (a set of its own)
    ...     again = start_names(tree)
    >>> sorted(again), [key == id(tree) or key == ("names", id(tree)) for key in kept]
    (['x', 'y'], [True, True])
    """
    start = _START
    if start is None or start[0] is not tree:
        return assigned_names(tree)
    kept = start[1]
    held = kept.get(("names", id(tree)))
    if held is not None and held[0] is tree:
        return set(held[1])
    names = _assigned(tree, start_walk(tree))
    kept[("names", id(tree))] = (tree, frozenset(names))
    return names


def _assigned(tree, nodes) -> set[str]:
    """The names of ``assigned_names``, from ``nodes``, the walk of ``tree``."""
    names = {a.id for a in tree.args.args + tree.args.posonlyargs + tree.args.kwonlyargs}
    names.update([node.id for node in nodes if node.__class__ is _Name and
                  node.ctx.__class__ is _Store])
    return names


def reads_and_writes(tree, nodes=None) -> tuple:
    """How often each name is read and written in ``tree``: ``(reads, writes)``, two Counters.

    ``y += 1`` writes ``y`` twice (its Name and the statement), never once; an item or
    attribute store (``z[0] = ...``) writes its root name twice too. A pass that moves a
    value reads ``writes[name] == 1`` as "assigned once" (a def-use count).

    >>> import gast
    >>> reads, writes = reads_and_writes(gast.parse("y = x\\nz[0] = y\\ny += x"))
    >>> dict(reads), dict(writes)
    ({'x': 2, 'y': 1, 'z': 1}, {'y': 3, 'z': 2})
    """
    from collections import Counter
    reads, writes = Counter(), Counter()
    for node in walk(tree) if nodes is None else nodes:  # (nodes: the walk of tree)
        kind = type(node)
        if kind is gast.Name:
            if type(node.ctx) is gast.Load:
                reads[node.id] += 1
            elif type(node.ctx) is not gast.Param:
                writes[node.id] += 1
        elif kind is gast.AugAssign and type(node.target) is gast.Name:
            writes[node.target.id] += 1
        elif kind in (gast.Subscript, gast.Attribute) and type(node.ctx) is not gast.Load:
            writes[root_name(node)] += 2
    return reads, writes


def signed_constant(node, kind: type):
    """The number of type ``kind`` that ``node`` is written as, a sign included (``2``,
    ``-1``, ``-1.0``: a constant, or ``-`` applied to one as parsed), else None.

    >>> import gast
    >>> [signed_constant(gast.parse(t).body[0].value, int) for t in ("-1", "2", "-1.0")]
    [-1, 2, None]
    """
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        value = signed_constant(node.operand, kind)
        return None if value is None else -value
    if isinstance(node, gast.Constant) and type(node.value) is kind:
        return node.value
    return None


def flat_item(node) -> bool:
    """Is ``node`` an item of an array's flat iterator, ``y.flat[i]``?

    >>> import gast
    >>> flat_item(gast.parse("y.flat[0] = 1.0").body[0].targets[0])
    True
    >>> flat_item(gast.parse("p.w[0] = 1.0").body[0].targets[0])
    False
    """
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) and \
        node.value.attr == "flat"


def root_name(node) -> str:
    """The name an item or attribute chain starts from (``a`` of ``a.b[0]``), or ``""``."""
    while type(node) in (gast.Subscript, gast.Attribute):
        node = node.value
    return node.id if type(node) is gast.Name else ""


def children(node) -> list:
    """The nodes directly under ``node``, in field order (``ast.iter_child_nodes``), but
    for its context (``Load()``...) and operator (``Add()``...)."""
    found = []
    fields = node.__dict__
    for field in _NODE_FIELDS.get(node.__class__) or node_fields(node.__class__):
        value = fields.get(field)
        if type(value) is list:
            found.extend([item for item in value if isinstance(item, ast.AST)])
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def breaks_own_loop(block: list) -> bool:
    """Does ``block`` (a loop's body) hold a ``break`` of its own loop, not of a loop inside
    it? For gast's trees and the standard library's alike (read by class name).

    >>> breaks_own_loop(ast.parse("if x: break").body)
    True
    >>> breaks_own_loop(ast.parse("for i in y: break").body)
    False
    """
    for stmt in block:
        kind = type(stmt).__name__
        if kind == "Break":
            return True
        if kind == "If" and (breaks_own_loop(stmt.body) or breaks_own_loop(stmt.orelse)):
            return True
    return False


def statements_in_order(stmts: list, loops: tuple = ()):
    """Each statement of ``stmts`` and of the ``if``, ``for`` and ``while`` blocks in them,
    in the order Python reads them (pre-order), with the ids of the loops around it (a
    loop's ``else`` block is not in the loop); other compound statements are not entered.
    With :func:`header`, what a pass reads of each in turn.

    >>> import gast
    >>> tree = gast.parse("for i in n:\\n    if i:\\n        a = 1\\nelse:\\n    b = 2")
    >>> [(type(s).__name__, len(loops)) for s, loops in statements_in_order(tree.body)]
    [('For', 0), ('If', 1), ('Assign', 1), ('Assign', 0)]
    """
    for stmt in stmts:
        yield stmt, loops
        if isinstance(stmt, (gast.For, gast.While)):
            yield from statements_in_order(stmt.body, loops + (id(stmt),))
            yield from statements_in_order(stmt.orelse, loops)
        elif isinstance(stmt, gast.If):
            yield from statements_in_order(stmt.body, loops)
            yield from statements_in_order(stmt.orelse, loops)


def header(stmt) -> list:
    """What ``stmt`` itself reads before its blocks: an ``if``'s or a ``while``'s test, a
    ``for``'s iterable; any other statement whole.

    >>> import gast
    >>> [type(p).__name__ for p in header(gast.parse("while x > 0:\\n    x = x - 1").body[0])]
    ['Compare']
    """
    if isinstance(stmt, (gast.If, gast.While)):
        return [stmt.test]
    if isinstance(stmt, gast.For):
        return [stmt.iter]
    return [stmt]


def blocks(stmts: list) -> list:
    """``stmts`` and every block of statements nested in them (bodies, ``else`` blocks,
    handlers...), outer first: the lists themselves, which a pass may change in place.
    Expressions are not entered (there is no statement in one).

    >>> import gast
    >>> tree = gast.parse("for i in n:\\n    if i:\\n        a = 1\\nb = 2")
    >>> [len(block) for block in blocks(tree.body)]
    [2, 1, 1]
    """
    found = [stmts]
    for block in found:  # (each block appended while it runs is read too)
        for stmt in block:
            fields = stmt.__dict__
            for field in ("body", "orelse", "handlers", "finalbody"):
                inner = fields.get(field)
                if type(inner) is list and inner:
                    found.append(inner)
    return found


_UNSEEN = object()
_LEAF = object()  # a node with no node fields (Load, Add, Constant...) and no method: as it is
_NAME = object()  # a name the pass has no method for: as it is, unless it is annotated


class _Dispatch:
    """Each pass class keeps a table: node class -> its ``visit_<Node>`` method, None (go
    through ``generic_visit``), ``_LEAF`` (nothing to do: left as it is, not visited) or
    ``_NAME`` (a name: nothing to do but for a parameter's annotation)."""

    _table: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._table = {}

    def _method(self, node_class):
        method = getattr(self.__class__, "visit_" + node_class.__name__, None)
        if method is _OLD_CONSTANTS:  # (the standard library's, for visit_Num and the like:
            # a failed lookup per constant, for no such method): a leaf, but for a pass's
            # own generic_visit, which still sees each constant
            method = _LEAF if self.__class__.generic_visit in _OWN_WALKS else None
        elif method is None and not node_fields(node_class):
            method = _LEAF
        elif method is None and node_class.__name__ == "Name":
            method = _NAME
        self.__class__._table[node_class] = method
        return method

    def visit(self, node):
        method = self._table.get(node.__class__, _UNSEEN)
        if method is _UNSEEN:
            method = self._method(node.__class__)
        if method is None:
            return self.generic_visit(node)
        if method is _NAME:
            return node if node.__dict__.get("annotation") is None else self.generic_visit(node)
        return node if method is _LEAF else method(self, node)


# ``ast.NodeVisitor.visit_Constant``: it looks up ``visit_Num``, ``visit_Str``... (none
# here) and calls ``generic_visit``; a constant is dispatched as a plain node instead
_OLD_CONSTANTS = getattr(ast.NodeVisitor, "visit_Constant", None)


class Visitor(_Dispatch, ast.NodeVisitor):
    """``gast.NodeVisitor`` with a faster dispatch and walk (a pass visits every node)."""

    def generic_visit(self, node):
        table = self._table
        for child in children(node):
            method = table.get(child.__class__)
            if method is not _LEAF and (method is not _NAME or
                                        child.__dict__.get("annotation") is not None):
                self.visit(child)


class Transformer(_Dispatch, ast.NodeTransformer):
    """``gast.NodeTransformer`` with a faster dispatch and walk; the same semantics (a
    visit returning None removes the node, a list replaces it by several)."""

    def generic_visit(self, node):
        get = self._table.get
        fields = node.__dict__
        for field in _NODE_FIELDS.get(node.__class__) or node_fields(node.__class__):
            old = fields.get(field)
            if type(old) is list:
                new = []
                append = new.append
                for value in old:
                    method = get(value.__class__)  # (None: a node to visit, or no node)
                    if method is _NAME:  # (a name: left as it is, but for an annotation)
                        try:
                            if value.annotation is None:
                                append(value)
                                continue
                        except AttributeError:  # (a Name made without one)
                            append(value)
                            continue
                    elif method is _LEAF or method is None and not isinstance(value, _AST):
                        append(value)  # (left as it is: no call)
                        continue
                    value = self.visit(value)
                    if value is None:
                        continue
                    if not isinstance(value, _AST):
                        new.extend(value)
                        continue
                    append(value)
                old[:] = new
            elif isinstance(old, _AST):
                method = get(old.__class__)
                if method is _LEAF or method is _NAME and old.__dict__.get("annotation") is None:
                    continue
                new_node = self.visit(old)
                if new_node is None:
                    delattr(node, field)
                elif new_node is not old:
                    fields[field] = new_node
        return node


class Copier(Transformer):
    """A ``Transformer`` that leaves the tree it visits as it is and gives a new one: each
    node is copied as it is visited (``clone``, with the pass's changes made on the way),
    where a visit of a copy would first copy the nodes it then replaces. A
    ``visit_<Node>`` method returns new nodes and never changes ``node``;
    ``self.generic_visit(node)`` is the copy of ``node`` with its children visited.

    >>> import gast
    >>> class Upper(Copier):
    ...     def visit_Name(self, node):
    ...         return gast.Name(node.id.upper(), node.ctx, None, None)
    >>> tree = gast.parse("y = f(x) + 1.0").body[0]
    >>> new = Upper().visit(tree)
    >>> new.targets[0].id, new.value.left.args[0].id, tree.value.left.args[0].id
    ('Y', 'X', 'x')
    >>> new.value.right is tree.value.right, new.value.right.value
    (False, 1.0)
    """

    def visit(self, node):
        new = super().visit(node)
        if new is node:  # a leaf, left as it is (a constant, an operator...): copied all the same
            new = node.__class__.__new__(node.__class__)
            new.__dict__ = node.__dict__.copy()
        return new

    def generic_visit(self, node):
        cls = node.__class__
        fields = node.__dict__.copy()
        for field in _NODE_FIELDS.get(cls) or node_fields(cls):
            old = fields.get(field)
            if type(old) is list:
                new = []
                for value in old:
                    if isinstance(value, ast.AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast.AST):
                            new.extend(value)
                            continue
                    new.append(value)
                fields[field] = new
            elif isinstance(old, ast.AST):
                new_node = self.visit(old)
                if new_node is None:
                    del fields[field]
                else:
                    fields[field] = new_node
        new = cls.__new__(cls)
        new.__dict__ = fields
        return new


# the generic visits that do nothing to a node without node fields (a constant): such a
# node is left as it is, never visited, by a pass that keeps one of them
_OWN_WALKS = (Visitor.generic_visit, Transformer.generic_visit, Copier.generic_visit)
