"""The entry of a compiled variant: a guard on the arguments' kinds, then the call.

A gradient is compiled for the kinds of its arguments (``describe``: Python floats, a
list of four floats, a 2-d float array...). Finding the variant of a call by
describing every argument and looking the description up costs microseconds, more than
the whole gradient of a small function. So each variant gets an *entry*: a small
generated function that tests exactly what its description says, with ``type(...) is``
checks, and calls the variant, or hands the call back to the general path when a test
fails. The gradient object calls the entry of the variant it used last.

When the function's parameters are plain (no ``*args`` or ``**kwargs``, names that
do not clash with the entry's own), the entry has the function's own signature, so a
call binds its arguments as the function would, at no cost:

>>> import inspect
>>> import numpy as np
>>> def f(x, w, n=2.0):
...     return n * np.sum(w * x)
>>> entry = make_entry("grad_f", inspect.signature(f), ["float", ("nd", 2, "f"), "float"],
...                    lambda x, w, n: ("variant", x), lambda *a: ("general path", a))
>>> entry(1.5, np.ones((2, 2))), entry(1.5, w=np.ones((2, 2)), n=3.0)
(('variant', 1.5), ('variant', 1.5))
>>> [entry(*a)[0] for a in [(1, np.ones((2, 2))), (1.5, np.ones(2)), (1.5, np.ones(2), 1)]]
['general path', 'general path', 'general path']
>>> entry(1.5)
Traceback (most recent call last):
    ...
TypeError: grad_f() missing 1 required positional argument: 'w'
>>> def norm2(xy):
...     return 0.0
>>> print(entry_source("grad_norm2", inspect.signature(norm2), [("list", ("float",) * 2)],
...                    catch=True))
def enter_grad_norm2(xy):
    if type(xy) is list and len(xy) == 2 and type(xy[0]) is float and type(xy[1]) is float:
        try:
            return variant(xy)
        except caught as exc:
            handle(exc)
            raise
    return general(xy)

Otherwise the entry takes ``*args, **kwargs`` and hands keyword calls to the general path.
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import sys
import keyword
import linecache
import operator
import re
import types

import numpy as np

from . import codegen
from .codegen import function_with_cells, register
from .source import ARGUMENT_READS, MISSING, complex_read, same_items, same_type
from .descriptors import describe, describe_argument, numpy_number, undescribed
from .trees import walk

_PYTHON = ("float", "int", "complex")  # descriptions of Python numbers, named as their types
_UNROLL = 6  # lists and tuples up to this length test their items one by one
# names the entry's own code uses: a parameter with one of these names is renamed
_RESERVED = {"type", "len", "float", "int", "complex", "list", "tuple", "ndarray", "args",
             "kwargs", "variant", "general", "describe", "count_of", "caught", "handle", "exc",
             "map", "all", "fits", "missed"}


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


# (Python 3.10: codegen's unparser, which writes ``a, b = args`` as 3.11 does)
class _Unparser(getattr(codegen, "_Unparser", ast._Unparser)):
    """``ast.unparse``, but ``a and b and c == d`` as Python reads it: without the
    parentheses ``ast.unparse`` puts around the third operand of an ``and`` and those
    after it (it raises the precedence at each operand)."""

    def visit_BoolOp(self, node):
        operator = self.boolops[node.op.__class__.__name__]
        precedence = self.boolop_precedence[operator]
        with self.require_parens(precedence, node):
            for value in node.values:
                self.set_precedence(precedence.next(), value)
            self.interleave(lambda: self.write(f" {operator} "), self.traverse, node.values)

    def visit_Call(self, node):
        """``len(shape_of_x := x.shape)``: a lone argument held in a name needs no
        parentheses of its own."""
        if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.NamedExpr):
            self.set_precedence(getattr(ast._Precedence, "NAMED_EXPR", ast._Precedence.TUPLE),
                                node.args[0])  # (3.10: TUPLE)
        super().visit_Call(node)


def _text(tree) -> str:
    """The source of ``tree``: a guard's test, a statement, an entry."""
    return _Unparser().visit(ast.fix_missing_locations(tree))


def _type_is(value: ast.expr, cls: str) -> ast.Compare:
    """``type(value) is cls``."""
    return ast.Compare(ast.Call(_load("type"), [value], []), [ast.Is()], [_load(cls)])


def _equal(left: ast.expr, right: ast.expr) -> ast.Compare:
    return ast.Compare(left, [ast.Eq()], [right])


def _all(tests: list) -> ast.expr:
    """``a and b and c`` as one flat ``and`` (``True`` for no test)."""
    values = []
    for test in tests:
        flat = isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
        values.extend(test.values if flat else [test])
    if not values:
        return ast.Constant(True)
    return values[0] if len(values) == 1 else ast.BoolOp(ast.And(), values)


def _path(text: str) -> ast.expr:
    """The expression a path of attributes and items names (``model.layers[0]``)."""
    return ast.parse(text, mode="eval").body


_FLOAT64 = np.dtype(np.float64)  # (the dtype of most arrays: tested by identity first)


def guard(desc, name: str, constants: dict) -> str:
    """A Python test that the value called ``name`` is described by ``desc`` (the text of
    :func:`guard_test`).

    ``constants`` receives the values the test refers to (descriptions compared whole).

    >>> guard("float", "x", {}), guard(("nd", 1, "i"), "x", {})
    ('type(x) is float', "type(x) is ndarray and x.ndim == 1 and x.dtype.kind == 'i'")
    >>> guard(("nd", 1, "f"), "x", {})  # (float64's dtype: one read, no string compared)
    "type(x) is ndarray and x.ndim == 1 and (x.dtype is float64_dtype or x.dtype.kind == 'f')"
    >>> guard(("tuple", ("float",) * 10), "xs", {})
    'type(xs) is tuple and len(xs) == 10 and count_of(map(type, xs), float) == 10'
    >>> constants = {}
    >>> print(*guard(("dict", (("a", "float"), ("b", ("nd", 1, "f")))), "d", constants)
    ...       .split(" and "), sep=" and\\n")
    type(d) is dict and
    tuple(d) == described_0 and
    type(d['a']) is float and
    type(d['b']) is ndarray and
    d['b'].ndim == 1 and
    (d['b'].dtype is float64_dtype or d['b'].dtype.kind == 'f')
    >>> constants
    {'described_0': ('a', 'b')}
    >>> guard(("dict", ((("a", 1), "float"),)), "d", constants)  # (a key not written simply)
    'describe(d) == described_1'
    """
    return _text(guard_test(desc, _load(name), constants))


def _shape_name(value: ast.expr) -> str:
    """The name the entry holds ``value``'s shape in (``shape_of_x``), read once."""
    return "shape_of_" + re.sub(r"\W+", "_", ast.unparse(value)).strip("_")


def _length_ones(shape: ast.expr, ndim: int, ones: tuple) -> list[ast.expr]:
    """The tests that the axes ``ones`` of an array of ``ndim`` axes have length 1 and the
    others do not (``describe_argument``), on ``shape``, the name of its shape: ``1 not in
    shape_of_x`` where none has, else one test an axis (``shape_of_x[0] == 1``)."""
    if not ones:
        return [ast.Compare(ast.Constant(1), [ast.NotIn()], [shape])]
    return [ast.Compare(ast.Subscript(copy.deepcopy(shape), ast.Constant(i), ast.Load()),
                        [ast.Eq() if i in ones else ast.NotEq()], [ast.Constant(1)])
            for i in range(ndim)]


def guard_test(desc, value: ast.expr, constants: dict) -> ast.expr:
    """The test that ``value`` (an expression) is described by ``desc``, as a tree;
    ``constants`` receives the values it refers to (see :func:`guard`)."""
    def at():  # (a node of its own for each use: a pass may rename the names it holds)
        return copy.deepcopy(value)

    def attribute(node, *names):
        for name in names:
            node = ast.Attribute(node, name, ast.Load())
        return node

    if isinstance(desc, str) and desc in _PYTHON:  # (a bool, described as "int" too, goes
        return _type_is(at(), desc)                # the general way)
    if isinstance(desc, tuple) and desc[0] == "nd" and (
            len(desc) == 3 or len(desc) == 4 and type(desc[3]) is tuple):
        kind = _equal(attribute(at(), "dtype", "kind"), ast.Constant(desc[2]))
        if desc[2] == "f":  # (float64 first: one attribute read, and no string compared)
            kind = ast.BoolOp(ast.Or(), [ast.Compare(attribute(at(), "dtype"), [ast.Is()],
                                                     [_load("float64_dtype")]), kind])
        if len(desc) == 3:  # (which axes have length 1 not said: the rank alone)
            return _all([_type_is(at(), "ndarray"),
                         _equal(attribute(at(), "ndim"), ast.Constant(desc[1])), kind])
        # the shape read once: its length is the rank, its items the axes of length 1
        shape = _shape_name(value)
        held = ast.NamedExpr(ast.Name(shape, ast.Store()), attribute(at(), "shape"))
        return _all([_type_is(at(), "ndarray"),
                     _equal(ast.Call(_load("len"), [held], []), ast.Constant(desc[1])), kind] +
                    _length_ones(_load(shape), desc[1], desc[3]))
    if desc == ("none",):  # (an argument that is None: describe_argument)
        return ast.Compare(at(), [ast.Is()], [ast.Constant(None)])
    if isinstance(desc, tuple) and desc[0] == "function":  # (the very function: np.tanh)
        constant = f"described_{len(constants)}"
        constants[constant] = desc[1]
        return ast.Compare(at(), [ast.Is()], [_load(constant)])
    if isinstance(desc, tuple) and desc[0] == "object":
        # an object of a user's class: its class; that no own attribute hides a method the
        # variant inlined, and the classes of the members it inlined from, are tested too
        # (``read_tests``: "own", "class")
        constant = f"described_{len(constants)}"
        constants[constant] = desc[1]
        return _type_is(at(), constant)
    if isinstance(desc, tuple) and desc[0] in ("list", "tuple") and len(desc) == 2 and desc[1] and \
            len(set(desc[1])) == 1 and desc[1][0] in _PYTHON:
        items, item = len(desc[1]), desc[1][0]
        head = [_type_is(at(), desc[0]),
                _equal(ast.Call(_load("len"), [at()], []), ast.Constant(items))]
        if items <= _UNROLL:
            return _all(head + [_type_is(ast.Subscript(at(), ast.Constant(i), ast.Load()), item)
                                for i in range(items)])
        types_of = ast.Call(_load("map"), [_load("type"), at()], [])
        return _all(head + [_equal(ast.Call(_load("count_of"), [types_of, _load(item)], []),
                                   ast.Constant(items))])
    if isinstance(desc, tuple) and desc[0] in ("list", "tuple") and len(desc) == 2 and \
            0 < len(desc[1]) <= _UNROLL and _says_ones(desc):  # ([W1, b1, W2, b2]: each
        return _all([_type_is(at(), desc[0]),          # array's test, in turn)
                     _equal(ast.Call(_load("len"), [at()], []), ast.Constant(len(desc[1])))] +
                    [guard_test(item, ast.Subscript(at(), ast.Constant(i), ast.Load()),
                                constants) for i, item in enumerate(desc[1])])
    if isinstance(desc, tuple) and desc[0] == "dict" and 0 < len(desc[1]) <= _UNROLL and \
            all(type(key) in (str, int) for key, _ in desc[1]):
        keys = f"described_{len(constants)}"  # its keys, in order, then each item's test
        constants[keys] = tuple(key for key, _ in desc[1])
        return _all([_type_is(at(), "dict"),
                     _equal(ast.Call(_load("tuple"), [at()], []), _load(keys))] +
                    [guard_test(item, ast.Subscript(at(), ast.Constant(key), ast.Load()),
                                constants) for key, item in desc[1]])
    constant = f"described_{len(constants)}"
    constants[constant] = desc
    if isinstance(desc, tuple) and len(desc) == 4 and type(desc[3]) is tuple or \
            _says_ones(desc):  # (a CuPy array's axes of length 1, or those of the arrays a
        # list holds: describe_argument)
        return _equal(ast.Call(_load("describe_argument"), [at()], []), _load(constant))
    return _equal(ast.Call(_load("describe"), [at()], []), _load(constant))


def _says_ones(desc) -> bool:
    """Does ``desc`` say, of an array it holds, which axes have length 1?"""
    if type(desc) is not tuple or not desc:
        return False
    if desc[0] in ("list", "tuple") and len(desc) == 2 and type(desc[1]) is tuple:
        return any(map(_says_ones, desc[1]))
    if desc[0] == "dict" and len(desc) == 2 and type(desc[1]) is tuple:
        return any(_says_ones(item) for _, item in desc[1])
    return len(desc) == 4 and type(desc[3]) is tuple


def read_tests(reads, constants: dict, names=None) -> list[str]:
    """Tests that the functions a variant was built with are still what their names give
    (:func:`s2sad.source.recording`); ``constants`` receives what they refer to. A method
    inlined from an argument's class (``"own"``) is tested not hidden by the argument's own
    attribute (``names``: the entry's name of each parameter, if not its own). The text of
    :func:`read_test_trees`.

    >>> import math
    >>> constants = {}
    >>> layers = [object()]
    >>> print(*read_tests([("item", {"log": math.log}, "log", math.log),
    ...                    ("own", "model", "act", None), ("class", "model.layer", None, float),
    ...                    ("own", "model.layer", "forward", None),
    ...                    ("class", "model.blocks", None, list),
    ...                    ("length", "model.blocks", 2, None),
    ...                    ("items", layers, None, tuple(layers))], constants,
    ...                   {"model": "arg_0"}), sep="\\n")
    read_0.get('log') is read_1
    'act' not in arg_0.__dict__
    type(arg_0.layer) is read_2
    'forward' not in arg_0.layer.__dict__
    type(arg_0.blocks) is read_3
    len(arg_0.blocks) == 2
    read_6(read_4, read_5)
    """
    return [_text(test) for test in read_test_trees(reads, constants, names)]


def read_test_trees(reads, constants: dict, names=None) -> list[ast.expr]:
    """The tests of :func:`read_tests`, as trees."""
    def not_in(key, holder: ast.expr) -> ast.Compare:
        return ast.Compare(ast.Constant(key), [ast.NotIn()], [holder])

    tests = []
    for kind, holder, key, value in reads:
        if kind in ARGUMENT_READS:  # (an argument, or an object
            head = re.match(r"[^.\[]*", holder).group()  # in its attributes: model.layers[0])
            path = (names or {}).get(head, head) + holder[len(head):]
            if kind == "own":
                def test(p, key=key):
                    return not_in(key, ast.Attribute(p, "__dict__", ast.Load()))
            elif kind == "length" and type(key) is tuple:  # (a dict of objects: its keys,
                def test(p, key=key):                        # in order)
                    return _equal(ast.Call(_load("tuple"), [p], []), ast.Constant(key))
            elif kind == "length":
                def test(p, key=key):
                    return _equal(ast.Call(_load("len"), [p], []), ast.Constant(key))
            elif kind == "same":  # (a function in its attributes: self.act is np.tanh)
                constant = f"read_{len(constants)}"
                constants[constant] = value

                def test(p, constant=constant):
                    return ast.Compare(p, [ast.Is()], [_load(constant)])
            elif kind == "number":  # (a NumPy number of that dtype kind, not an np.matrix)
                constant = f"read_{len(constants)}"
                constants[constant] = numpy_number

                def test(p, constant=constant, key=key):
                    return ast.Call(_load(constant), [p, ast.Constant(key)], [])
            elif kind == "undescribed":  # (model.inner.d: still nothing its description
                constant = f"read_{len(constants)}"  # would carry, descriptors.undescribed)
                constants[constant] = undescribed

                def test(p, constant=constant, key=key):
                    return ast.Call(_load(constant), [p, ast.Constant(key)], [])
            elif kind == "dtype":
                def test(p, key=key):
                    return _equal(ast.Attribute(ast.Attribute(p, "dtype", ast.Load()), "kind",
                                                ast.Load()), ast.Constant(key))
            else:
                constant = f"read_{len(constants)}"
                constants[constant] = value

                def test(p, constant=constant):
                    return _type_is(p, constant)
            tests.append(_every(path, test))
            continue
        where, what = f"read_{len(constants)}", f"read_{len(constants) + 1}"
        if kind == "real":  # (a global number or array a real build read: not complex now)
            constants[where], constants[what] = holder, complex_read
            tests.append(ast.UnaryOp(ast.Not(), ast.Call(_load(what), [
                _load(where), ast.Constant(key), ast.Constant(value)], [])))
            continue
        if kind == "type":  # (a global a loop walks: of the type it had, a list or a dict,
            constants[where], constants[what] = holder, same_type  # holding what it held)
            constants[f"read_{len(constants)}"] = value
            tests.append(ast.Call(_load(what), [_load(where), ast.Constant(key),
                                                _load(f"read_{len(constants) - 1}")], []))
            continue
        if kind == "item" and value is MISSING:  # (an object's attribute it does not have)
            constants[where] = holder
            tests.append(not_in(key, _load(where)))
            continue
        constants[where], constants[what] = holder, value
        if kind == "items":  # (a module's list of objects: the very same ones)
            same = f"read_{len(constants)}"
            constants[same] = same_items
            tests.append(ast.Call(_load(same), [_load(where), _load(what)], []))
            continue
        if kind == "item":
            read = ast.Call(ast.Attribute(_load(where), "get", ast.Load()), [ast.Constant(key)],
                            [])
        else:
            read = ast.Attribute(_load(where), "cell_contents" if kind == "cell" else key,
                                 ast.Load())
        tests.append(ast.Compare(read, [ast.Is()], [_load(what)]))
    return tests


def _every(path: str, test, depth: int = 0) -> ast.expr:
    """``test(path)`` (``test`` makes a tree of a path's), for each item where ``path``
    says ``[*]`` (every item of a list of alike objects, walked by a loop).

    >>> _text(_every("m.blocks[*].layers[*].act", lambda p: _type_is(p, "T")))
    'all((all((type(each_1.act) is T for each_1 in each_0.layers)) for each_0 in m.blocks))'
    """
    if "[*]" not in path:
        return test(_path(path))
    base, rest = path.split("[*]", 1)
    each = f"each_{depth}"
    walked = ast.comprehension(ast.Name(each, ast.Store()), _path(base), [], 0)
    return ast.Call(_load("all"), [ast.GeneratorExp(_every(each + rest, test, depth + 1),
                                                    [walked])], [])


# what a test of an argument's attributes may meet when one the build saw is gone (the
# general path then describes the argument again)
_MISSED = (AttributeError, IndexError, KeyError, TypeError)


def _reaches(reads) -> bool:
    """Do the tests of ``reads`` read an argument's attributes (which may be gone)?"""
    return any(kind in ARGUMENT_READS for kind, *_ in reads)


def _usable(name: str) -> bool:
    """Can the entry's code call a parameter ``name``?"""
    return name.isidentifier() and not keyword.iskeyword(name) and name not in _RESERVED \
        and not name.startswith(("described_", "default_", "arg_", "read_", "each_",
                                 "shape_of_"))


def _plain(signature) -> bool:
    """Can the entry take ``signature`` as it is?"""
    return all(p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and _usable(p.name)
               for p in signature.parameters.values())


def _parameters(signature, constants: dict, unset=()) -> ast.arguments:
    """The entry's parameters: the function's, defaults read from ``constants`` (those
    named in ``unset``: the marker :data:`UNSET`, read at the call instead)."""
    positional, only, keywords, keyword_defaults, defaults = [], [], [], [], []
    for param in signature.parameters.values():
        default = None
        if param.name in unset:
            constants["default_unset"] = UNSET
            default = _load("default_unset")
        elif param.default is not param.empty:
            constant = f"default_{len([k for k in constants if k.startswith('default_')])}"
            constants[constant] = param.default
            default = _load(constant)
        if param.kind is param.KEYWORD_ONLY:
            keywords.append(ast.arg(param.name))
            keyword_defaults.append(default)
            continue
        (only if param.kind is param.POSITIONAL_ONLY else positional).append(ast.arg(param.name))
        if default is not None:
            defaults.append(default)
    return ast.arguments(posonlyargs=only, args=positional, vararg=None, kwonlyargs=keywords,
                         kw_defaults=keyword_defaults, kwarg=None, defaults=defaults)


class _Unset:
    """What an entry's parameter holds when the call left it out (:func:`defaults_head`)."""
    __slots__ = ()

    def __repr__(self) -> str:
        return "<the function's default>"


UNSET = _Unset()


def defaults_head(signature, owner, constants: dict) -> tuple[list[ast.stmt], set]:
    """Statements in front of an entry's guard that give each parameter the call left out
    the default ``owner`` has now, as Python reads a function's defaults at each call (a
    gradient built before ``f.__defaults__ = (5.0,)`` uses 5.0); and the names of those
    parameters. Where ``owner``'s defaults are no longer the tuple or dict it had, such a
    call goes to ``default_stale`` with each parameter's value (:data:`UNSET` where left
    out). A call that gives every argument tests nothing but that.

    >>> def f(x, n=2.0, *, k=1.0):
    ...     return x
    >>> constants = {}
    >>> lines, names = defaults_head(inspect.signature(f), f, constants)
    >>> print(*map(_text, lines), sep="\\n")
    if n is default_unset:
        if default_owner.__defaults__ is not default_seen:
            return default_stale(x, n, k)
        n = default_0
    if k is default_unset:
        if default_owner.__kwdefaults__ is not default_kwseen:
            return default_stale(x, n, k)
        k = default_kwseen.get('k', default_unset)
        if k is default_unset:
            return default_stale(x, n, k)
    >>> sorted(names), constants["default_0"]
    (['k', 'n'], 2.0)
    """
    positional = owner.__defaults__ or ()
    keywords = owner.__kwdefaults__ or {}
    params = list(signature.parameters.values())
    ordered = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    unset = dict(zip(ordered[len(ordered) - len(positional):], positional))
    kwonly = [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.name in keywords]
    if not unset and not kwonly:
        return [], set()
    constants.update(default_owner=owner, default_seen=owner.__defaults__,
                     default_kwseen=owner.__kwdefaults__, default_unset=UNSET)

    def stale() -> ast.Return:
        return ast.Return(ast.Call(_load("default_stale"), [_load(p.name) for p in params], []))

    def left_out(name: str) -> ast.Compare:
        return ast.Compare(_load(name), [ast.Is()], [_load("default_unset")])

    def changed(field: str, seen: str) -> ast.If:
        return ast.If(ast.Compare(ast.Attribute(_load("default_owner"), field, ast.Load()),
                                  [ast.IsNot()], [_load(seen)]), [stale()], [])

    statements = []
    for name, value in unset.items():
        constant = f"default_{len([k for k in constants if k[8:].isdigit()])}"
        constants[constant] = value
        statements.append(ast.If(left_out(name), [
            changed("__defaults__", "default_seen"),
            ast.Assign([ast.Name(name, ast.Store())], _load(constant))], []))
    for name in kwonly:  # (the dict may change in place: read at the call)
        read = ast.Call(ast.Attribute(_load("default_kwseen"), "get", ast.Load()),
                        [ast.Constant(name), _load("default_unset")], [])
        statements.append(ast.If(left_out(name), [
            changed("__kwdefaults__", "default_kwseen"),
            ast.Assign([ast.Name(name, ast.Store())], read),
            ast.If(left_out(name), [stale()], [])], []))
    return statements, set(unset) | set(kwonly)


def unset_tests(signature, descriptors, names, unset, constants: dict) -> list[str]:
    """Tests that a parameter with no default when the entry was made was given: each
    parameter of the entry defaults to :data:`UNSET` (the function may be given defaults
    later: ``f.__defaults__ = (5.0,)``), and the guard sends such a call to the general
    path. A parameter whose guard already refuses :data:`UNSET` needs no test.

    >>> def f(x, k):
    ...     return x
    >>> unset_tests(inspect.signature(f), ["float", "any"], ["x", "k"], set(), {})
    ['k is not default_unset']
    """
    loose = describe(UNSET)
    tests = [f"{name} is not default_unset" for param, desc, name in
             zip(signature.parameters.values(), descriptors, names, strict=True)
             if param.name not in unset and desc == loose]
    if tests:
        constants["default_unset"] = UNSET
    return tests


def _unset_test_trees(signature, descriptors, names, unset, constants: dict) -> list:
    """The tests of :func:`unset_tests`, as trees."""
    return [ast.parse(test, mode="eval").body
            for test in unset_tests(signature, descriptors, names, unset, constants)]


def given_arguments(signature, values) -> tuple[list, dict]:
    """``(args, kwargs)``: the arguments a call of an entry gave, from the values of its
    parameters (:data:`UNSET` where the call left one out).

    >>> def f(x, n=2.0, *, k=1.0):
    ...     return x
    >>> given_arguments(inspect.signature(f), (1.5, UNSET, 3.0))
    ([1.5], {'k': 3.0})
    >>> def g(x, n=2.0, m=3.0):
    ...     return x
    >>> given_arguments(inspect.signature(g), (1.5, UNSET, 4.0))
    ([1.5], {'m': 4.0})
    """
    args, kwargs, skipped = [], {}, False
    for param, value in zip(signature.parameters.values(), values, strict=True):
        if value is UNSET:
            skipped = True
        elif param.kind is param.POSITIONAL_ONLY or \
                param.kind is param.POSITIONAL_OR_KEYWORD and not skipped:
            args.append(value)
        else:
            kwargs[param.name] = value
    return args, kwargs


def entry_source(name: str, signature, descriptors, constants=None,
                 catch: bool = False, reads=(), owner=None, unsettable: bool = False) -> str:
    """The text of the entry of the variant of gradient ``name`` for ``descriptors``
    (one per parameter of ``signature``); with ``catch``, an exception of class ``caught``
    from the variant goes through ``handle`` (which may raise another in its place). With
    ``unsettable``, a parameter the call leaves out that has no default holds
    :data:`UNSET`, and the call goes the general way (:func:`unset_tests`)."""
    constants = {} if constants is None else constants
    name = re.sub(r"\W", "_", name)  # grad_<lambda>
    plain = _plain(signature)
    if plain:
        names = list(signature.parameters)
    else:
        names = [p if _usable(p) else f"arg_{i}" for i, p in enumerate(signature.parameters)]
    head, unset = defaults_head(signature, owner, constants) if plain and owner is not None \
        else ([], set())
    tests = _all([guard_test(d, _load(n), constants) for d, n in zip(descriptors, names)] +
                 (_unset_test_trees(signature, descriptors, names, unset, constants)
                  if plain and unsettable else []) +
                 read_test_trees(reads, constants, dict(zip(signature.parameters, names))))
    call = ast.Call(_load("variant"), [  # (keyword-only parameters stay keyword-only)
        _load(n) for p, n in zip(signature.parameters.values(), names)
        if p.kind is not p.KEYWORD_ONLY], [
        ast.keyword(p.name, _load(n)) for p, n in zip(signature.parameters.values(), names)
        if p.kind is p.KEYWORD_ONLY])
    if plain:
        every = set(signature.parameters) if unsettable else unset
        parameters = _parameters(signature, constants, every)
        body = inner = head
        fallback = ast.Return(ast.Call(_load("general"), [_load(n) for n in names], []))
    else:
        parameters = ast.arguments(posonlyargs=[], args=[], vararg=ast.arg("args"),
                                   kwonlyargs=[], kw_defaults=[], kwarg=ast.arg("kwargs"),
                                   defaults=[])
        fits = ast.BoolOp(ast.And(), [
            _equal(ast.Call(_load("len"), [_load("args")], []), ast.Constant(len(names))),
            ast.UnaryOp(ast.Not(), _load("kwargs"))])
        inner = [ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in names],
                                       ast.Store())], _load("args"))] if names else []
        body = [ast.If(fits, inner, [])]
        fallback = ast.Return(ast.Call(_load("general"), [ast.Starred(_load("args"), ast.Load())],
                                       [ast.keyword(None, _load("kwargs"))]))
    if _reaches(reads):  # (an attribute the build saw may be gone: the general path)
        constants["missed"] = _MISSED
        inner.append(ast.Try([ast.Assign([ast.Name("fits", ast.Store())], tests)], [
            ast.ExceptHandler(_load("missed"), None, [
                ast.Assign([ast.Name("fits", ast.Store())], ast.Constant(False))])], [], []))
        tests = _load("fits")
    enter = ast.Return(call)
    if catch:
        enter = ast.Try([enter], [ast.ExceptHandler(_load("caught"), "exc", [
            ast.Expr(ast.Call(_load("handle"), [_load("exc")], [])), ast.Raise(None, None)])],
            [], [])
    inner.append(ast.If(tests, [enter], []))
    function = ast.FunctionDef(f"enter_{name}", parameters, body + [fallback], [], None, None,
                               **({"type_params": []} if sys.version_info >= (3, 12) else {}))
    return _text(ast.Module([function], []))


def make_entry(name: str, signature, descriptors, variant, general, catch=None, reads=(),
               owner=None, stale=None, fast=None):
    """The entry function: ``variant(*args)`` when the arguments fit ``descriptors``,
    else ``general(*args)`` (``general(*args, **kwargs)`` where the entry cannot take the
    function's own signature). ``catch``: ``(exception class, handler)``; ``reads``: the
    functions the variant was built with, tested too (:func:`read_tests`). Its source shows
    in tracebacks; a call that does not fit the signature names the gradient. A short
    variant is its own entry, its guard put in front of its body (``guarded``). With
    ``owner``, the function differentiated, a parameter the call leaves out gets
    ``owner``'s default at the call; once its defaults changed, the call goes to
    ``stale`` (:func:`defaults_head`). ``fast``: a compiled kernel's call, taken first where
    the arguments' kinds are exactly those it was compiled for (:func:`guarded`)."""
    unsettable = stale is not None  # (a call leaving out one with no default: stale too)
    if owner is not None and not (owner.__defaults__ or owner.__kwdefaults__):
        owner = None  # (no default to read: no test at each call)
    entry = guarded(signature, descriptors, variant, general, catch, reads, owner, stale, fast)
    if entry is not None:
        entry.__qualname__ = name
        return entry
    constants: dict = {}
    text = entry_source(name, signature, descriptors, constants, catch is not None,
                        reads, owner, unsettable) + "\n"
    filename = f"<s2sad entry of {name}>"
    register(filename, text)
    namespace = {"ndarray": np.ndarray, "float64_dtype": _FLOAT64,
                 "describe": describe, "describe_argument": describe_argument, "count_of": operator.countOf,
                 "variant": variant, "general": general, "default_stale": stale, **constants}
    if catch is not None:
        namespace["caught"], namespace["handle"] = catch
    exec(compile(text, filename, "exec"), namespace)
    entry = namespace["enter_" + re.sub(r"\W", "_", name)]
    entry.__qualname__ = name  # (Python names it in a TypeError for a wrong call)
    return entry


# bytecode instructions of a variant short enough to be compiled again, guarded (counted,
# not measured in bytes: Python 3.11's bytecode holds caches, 3.10's does not)
_INLINE_INSTRUCTIONS = 250
_PREFIX = "_s2sad_"  # the guarded variant's own names: its builtins and helpers


def _instructions(code, most: int) -> int:
    """How many bytecode instructions ``code`` has (counted up to ``most``): those
    ``dis.get_instructions`` gives, counted from the offsets it decodes them at (Python
    3.10 to 3.13), without making each an ``Instruction`` (a tenth of the time).

    >>> import dis
    >>> _instructions(_instructions.__code__, 10 ** 6) == len(list(dis.get_instructions(
    ...     _instructions.__code__)))
    True
    """
    import dis
    import itertools
    offsets = getattr(dis, "_unpack_opargs", None)
    instructions = offsets(code.co_code) if offsets is not None else \
        dis.get_instructions(code)
    return sum(1 for _ in itertools.islice(instructions, most))


def exact_test(kind, desc, value: ast.expr, constants: dict) -> ast.expr:
    """The test that ``value``, described by ``desc``, has the exact ``kind``
    (``s2sad.transforms.numba_kernel.exact_kinds``): a Python number's type, or an
    ndarray's number of axes and dtype (the very object: NumPy's own, native one), and
    its axes of length 1 where ``desc`` tells them. It implies :func:`guard_test`'s.

    >>> constants = {}
    >>> _text(exact_test((1, np.dtype(np.float64)), ("nd", 1, "f"), _load("x"), constants))
    'type(x) is ndarray and x.ndim == 1 and x.dtype is exact_0'
    >>> constants
    {'exact_0': dtype('float64')}
    >>> _text(exact_test(float, "float", _load("y"), {}))
    'type(y) is float'
    """
    if isinstance(kind, type):
        return _type_is(value, kind.__name__)
    constant = f"exact_{len([k for k in constants if k.startswith('exact_')])}"
    constants[constant] = kind[1]
    ones = desc[3] if isinstance(desc, tuple) and len(desc) == 4 and \
        type(desc[3]) is tuple else None
    return _all([_type_is(copy.deepcopy(value), "ndarray"),
                 _equal(ast.Attribute(copy.deepcopy(value), "ndim", ast.Load()),
                        ast.Constant(kind[0])),
                 ast.Compare(ast.Attribute(copy.deepcopy(value), "dtype", ast.Load()),
                             [ast.Is()], [_load(constant)])] +
                (_length_ones(ast.Attribute(copy.deepcopy(value), "shape", ast.Load()),
                              kind[0], ones) if ones is not None else []))


class _Renamed(ast.NodeTransformer):
    """A copy of the variant's statements that calls ``new`` where they call ``old``."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old:
            return ast.copy_location(ast.Name(self.new, node.ctx), node)
        return node


def guarded(signature, descriptors, variant, general, catch=None, reads=(), owner=None,
            stale=None, fast=None):
    r"""``variant`` compiled again with the entry's guard as its first statement, so
    that a call of a small gradient (the seed's f4: about 0.3 us) is one call, not two;
    None where it is long (another call costs little there) or cannot be (a variant
    whose parameters are not the function's, a name of the guard's own in it).

    The guard and the ``try`` that sends ``catch``'s exceptions to its handler take the
    ``def`` line's number: the variant's own lines keep theirs, so a traceback shows the
    line of the generated source that failed, as the variant alone does. The guard reads
    the builtins and helpers it needs from closure cells of its own (``_s2sad_type``...):
    a user's global named ``len`` or ``list`` changes nothing.

    >>> import inspect, linecache
    >>> from s2sad.codegen import register
    >>> text = "def grad_f(x, n=2.0):\n    return n * x\n"
    >>> register("<grad_f>", text)
    >>> namespace = {}
    >>> exec(compile(text, "<grad_f>", "exec"), namespace)
    >>> variant = namespace["grad_f"]
    >>> variant.__defaults__ = (2.0,)
    >>> entry = guarded(inspect.signature(variant), ["float", "float"], variant,
    ...                 lambda *a: ("general path", a))
    >>> entry(1.5), entry(1.5, n=3.0), entry(1, 3.0)
    (3.0, 4.5, ('general path', (1, 3.0)))
    >>> entry.__code__.co_firstlineno == variant.__code__.co_firstlineno
    True

    With ``fast``, ``(name, kinds, cell)``: where the arguments have exactly ``kinds``
    (:func:`exact_test`), the variant's statements run first with its calls of ``name``
    (a numba kernel) made to what ``cell`` holds (its entry point for those kinds, which
    skips numba's typing of each argument); the guard on the descriptions comes after.
    """
    code = getattr(variant, "__code__", None)
    if code is None or not _plain(signature) or \
            code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or \
            _instructions(code, _INLINE_INSTRUCTIONS + 1) > _INLINE_INSTRUCTIONS:
        return None
    names = list(signature.parameters)
    if list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]) != names or \
            any(n.startswith(_PREFIX) for n in code.co_names + code.co_varnames +
                code.co_freevars + code.co_cellvars):
        return None
    text = "".join(linecache.getlines(code.co_filename))
    if not text:
        return None
    tree = ast.parse(text, code.co_filename)
    fdef = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and
                 s.name == code.co_name and s.lineno == code.co_firstlineno), None)
    if fdef is None:
        return None
    constants: dict = {}
    defaults, unset = defaults_head(signature, owner, constants) if owner is not None \
        else ([], set())
    tests = _all([guard_test(d, _load(n), constants)
                  for d, n in zip(descriptors, names, strict=True)] +
                 (_unset_test_trees(signature, descriptors, names, unset, constants)
                  if stale is not None else []) +
                 read_test_trees(reads, constants))
    helpers = {"ndarray": np.ndarray, "float64_dtype": _FLOAT64,
               "describe": describe, "describe_argument": describe_argument, "count_of": operator.countOf,
               "general": general, "default_stale": stale, **constants}
    if catch is not None:
        helpers["caught"], helpers["handle"] = catch
    # (trees.walk: ast.walk's nodes in its order, but for contexts and operators, which
    # have no names nor lines)
    walking = {node.target.id for node in walk(tests)  # (each_0: a test's own)
               if isinstance(node, ast.comprehension)}
    held = {node.target.id for node in walk(tests)  # (shape_of_x: a local of the variant's)
            if isinstance(node, ast.NamedExpr)}
    if (walking | held) & set(names):
        return None
    for node in walk(tests):  # (the parameters are the only names not the guard's)
        if isinstance(node, ast.Name) and node.id not in names and node.id not in walking:
            if node.id not in helpers and node.id not in held:
                helpers[node.id] = getattr(builtins, node.id)
            node.id = _PREFIX + node.id

    def name(text: str) -> ast.Name:
        return ast.Name(_PREFIX + text, ast.Load())

    fallback = ast.If(ast.UnaryOp(ast.Not(), tests), [ast.Return(ast.Call(
        name("general"), [ast.Name(n, ast.Load()) for n in names], []))], [])
    head = [fallback]  # (the statements in front of the variant's own, all on its def line)
    if fast is not None and not _reaches(reads):
        kernel, kinds, cell = fast
        exact = _all([exact_test(k, d, _load(n), constants)
                      for k, d, n in zip(kinds, descriptors, names, strict=True)] +
                     (_unset_test_trees(signature, descriptors, names, unset, constants)
                      if stale is not None else []) + read_test_trees(reads, constants))
        for node in walk(exact):  # (the guard's names, its own: as below)
            if isinstance(node, ast.Name) and node.id not in names:
                helpers.setdefault(node.id, constants.get(node.id, getattr(
                    builtins, node.id, None)))
                node.id = _PREFIX + node.id
        # (the kernel's call: the entry point the cell holds, read from the cell; the
        # statements keep the variant's line numbers, as below)
        quick = ast.If(exact, [_Renamed(kernel, _PREFIX + "fast").visit(copy.deepcopy(stmt))
                               for stmt in fdef.body], [])
    else:
        quick = None
    if _reaches(reads):  # (an attribute the build saw may be gone: the general path)
        helpers["missed"] = _MISSED
        fits = ast.Name(_PREFIX + "fits", ast.Store())
        head.insert(0, ast.Try([ast.Assign([fits], tests)], [ast.ExceptHandler(
            name("missed"), None, [ast.Assign([fits], ast.Constant(False))])], [], []))
        fallback.test = ast.UnaryOp(ast.Not(), name("fits"))
    if defaults:  # (first; every name not a parameter is its own, as in the guard)
        read = defaults
        for node in (n for stmt in read for n in walk(stmt)):
            if isinstance(node, ast.Name) and node.id not in names:
                node.id = _PREFIX + node.id
        head[:0] = read
    for stmt in head:
        for node in walk(stmt):
            ast.copy_location(node, fdef)
    body = fdef.body
    if catch is not None:
        handler = ast.ExceptHandler(name("caught"), _PREFIX + "exc", [
            ast.Expr(ast.Call(name("handle"), [name("exc")], [])), ast.Raise(None, None)])
        body = [ast.Try(body, [handler], [], [])]
        ast.copy_location(body[0], fdef)  # (not what it holds: the variant's own lines
        for node in walk(handler):  # keep their numbers)
            ast.copy_location(node, fdef)
        if quick is not None:
            quick.body = [ast.copy_location(ast.Try(quick.body, [copy.deepcopy(handler)],
                                                    [], []), fdef)]
    if quick is not None:  # (first, after the defaults: its test implies the guard's)
        for node in walk(quick.test):
            ast.copy_location(node, fdef)
        ast.copy_location(quick, fdef)
        head.insert(len(defaults), quick)
    fdef.body = head + body
    cells = dict(zip(code.co_freevars, variant.__closure__ or (), strict=True))
    cells.update({_PREFIX + k: types.CellType(v) for k, v in helpers.items()})
    if fast is not None and _PREFIX + "fast" in {n.id for n in walk(fdef)
                                                 if isinstance(n, ast.Name)}:
        cells[_PREFIX + "fast"] = fast[2]
    entry = function_with_cells(fdef, code.co_filename, variant.__globals__, cells)
    entry.__defaults__ = variant.__defaults__
    entry.__kwdefaults__ = variant.__kwdefaults__
    if stale is not None:  # (a default is read from the function at the call; one left
        params = list(signature.parameters.values())  # out with none goes the general way)
        positional = [p for p in params if p.kind is not p.KEYWORD_ONLY]
        entry.__defaults__ = (UNSET,) * len(positional) or None
        entry.__kwdefaults__ = {p.name: UNSET for p in params
                                if p.kind is p.KEYWORD_ONLY} or None
    elif unset:  # (each left out is read from the function at the call)
        params = list(signature.parameters.values())
        positional = [p for p in params if p.kind is not p.KEYWORD_ONLY and p.name in unset]
        entry.__defaults__ = (UNSET,) * len(positional) or None
        entry.__kwdefaults__ = {p.name: UNSET for p in params
                                if p.kind is p.KEYWORD_ONLY and p.name in unset} or None
    return entry
