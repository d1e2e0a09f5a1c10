"""Function -> gast tree, plus what the compiler may read of its surroundings.

>>> import math
>>> def area(r):
...     return math.pi * r ** 2
>>> src = FunctionSource.of(area)  # doctest: +SKIP
"""

from __future__ import annotations

import builtins
import inspect
import linecache
import operator
import re
import sys
import textwrap
import threading
import types
from contextlib import contextmanager
from collections import abc
from dataclasses import dataclass, field

import gast
import numpy as np

from .backends import LIBRARIES
from .errors import NoSourceError, UnsupportedSyntaxError
from .trees import clone


_PARSED: dict = {}  # id of a code object -> (the code object, what FunctionSource._read gave)
_PARSED_SIZE = 64   # the latest functions read: grad(f) reads f, its first call again


def _parsed(func):
    code = func.__code__
    entry = _PARSED.get(id(code))
    if entry is None or entry[0] is not code:
        if len(_PARSED) >= _PARSED_SIZE:
            _PARSED.pop(next(iter(_PARSED)))
        entry = _PARSED[id(code)] = (code, FunctionSource._read(func))
    return entry[1]


_DEF = re.compile(r"\s*(async\s+)?def\s")
_DECORATOR = re.compile(r"\s*@")


def _lines_by_indentation(code) -> tuple[list[str], int] | None:
    """The lines of the function of ``code`` and the first one's number: its decorators,
    its ``def``, and what follows up to the first line (not blank, not a comment, not a
    closing bracket) indented no deeper than the ``def``. None where the lines there
    are no ``def`` (a lambda) or the file cannot be read.

    ``inspect.getsourcelines`` finds the same end by tokenizing the file from the
    ``def`` on, which takes a tenth of the build of a long function. A cut inside a
    string or a bracket that goes on at the left margin does not parse: the caller
    then asks inspect.

    >>> def f(x):
    ...     return x
    >>> lines, first = _lines_by_indentation(f.__code__)
    >>> lines == inspect.getsourcelines(f.__code__)[0], first == f.__code__.co_firstlineno
    (True, True)
    """
    filename, first = code.co_filename, code.co_firstlineno
    linecache.checkcache(filename)  # (as inspect does: a file changed on disk is read again)
    lines = linecache.getlines(filename)
    at = first - 1  # (the index of the def line, after the decorators)
    while 0 <= at < len(lines) and _DECORATOR.match(lines[at]):
        at += 1
    if not 0 <= at < len(lines) or not _DEF.match(lines[at]):
        return None
    indent = len(lines[at]) - len(lines[at].lstrip())
    end = at + 1
    while end < len(lines):
        text = lines[end].lstrip()
        if text and not text.startswith(("#", ")", "]", "}")) and \
                len(lines[end]) - len(text) <= indent:
            break
        end += 1
    return lines[first - 1:end], first


def _construct_offset(node) -> int:
    """How far right of ``node``'s column a caret points: for an assignment to names
    (``y = np.unwrap(x)``, or the temporary that normalization gave a call of the user's
    ``return np.sum(np.pad(x))``), the columns up to its value, the construct refused
    where such a statement is; 0 for the rest, whose construct is the statement.

    >>> stmt = gast.parse("y = np.unwrap(x)").body[0]
    >>> _construct_offset(stmt), _construct_offset(gast.parse("y[0] = f(x)").body[0])
    (4, 0)
    """
    if not isinstance(node, gast.Assign) or \
            not all(isinstance(t, gast.Name) for t in node.targets):
        return 0
    value = node.value
    if getattr(value, "lineno", None) != getattr(node, "lineno", None) or \
            getattr(value, "col_offset", None) is None or \
            getattr(node, "col_offset", None) is None:
        return 0
    return max(value.col_offset - node.col_offset, 0)


def _inlined_construct_column(node, lineno: int, text: str | None, col: int | None):
    """The column of the construct of ``node``, a statement inlined from a function of the
    user's at ``lineno`` (its ``text``; ``col``: the statement's). The value's column
    counts from that function's own indentation, which the inlined node does not keep: it
    is the one indentation at which the value's text is found on the line.

    >>> stmt = gast.parse("t_1 = np.tanh(v)").body[0]
    >>> stmt.value.lineno, stmt.value.col_offset = 5, 11  # (`return np.tanh(v) + 1.0`)
    >>> _inlined_construct_column(stmt, 5, "        return np.tanh(v) + 1.0\\n", 8)
    15
    """
    if col is None or not text or not isinstance(node, gast.Assign) or \
            not all(isinstance(t, gast.Name) for t in node.targets):
        return col
    value = node.value
    start = getattr(value, "col_offset", None)
    if getattr(value, "lineno", None) != lineno or start is None:
        return col
    import ast
    try:
        shown = ast.unparse(gast.gast_to_ast(value))
    except Exception:  # noqa: BLE001 (a node normalization made that does not unparse)
        return col
    prefix = re.match(r"[\w.]*", shown).group() or shown[:1]
    found = [start + indent for indent in range(col + 1)
             if start + indent >= col and text.startswith(prefix, start + indent)]
    return found[0] if len(found) == 1 else col


@dataclass
class FunctionSource:
    """The parsed source of a user function and where it came from.

    ``tree`` is the ``gast.FunctionDef`` with line numbers of the user's file;
    ``globals`` is the function's module namespace (read, never written).
    """

    func: types.FunctionType
    tree: gast.FunctionDef
    filename: str
    lines: list[str]
    globals: dict
    closure: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)    # names the compiler added (module aliases)
    locals: set = field(default_factory=set)     # the function's parameters and local variables
    constants: dict = field(default_factory=dict)  # locals assigned one constant (dtype = None)
    dtypes: dict = field(default_factory=dict)  # arguments never assigned: the kind of their dtype
    floats: tuple = ({}, {}, frozenset())  # local float arrays whose .dtype sets a dtype: dtypes.float_locals
    arguments: dict = field(default_factory=dict)  # argument -> (its dtype's kind, holder)
    complex: bool = False  # the program holds complex numbers: its rules are defcomplex's
    # a gradient's generated code (inlined where it is called): the module globals it reads
    # at each call, name -> (the user's namespace, key), not its own namespace's copies
    live: dict = field(default_factory=dict)
    # a def or lambda inside a function (``tree`` it alone): the function whose source was
    # parsed, dedented as a whole (columns count from its def's indentation)
    outer: gast.FunctionDef | None = None
    # names s2sad made for the user's (``acc__total`` for ``acc.total``): errors show theirs
    shown: dict = field(default_factory=dict)

    @classmethod
    def of(cls, func) -> "FunctionSource":
        if isinstance(func, types.MethodType):
            raise NoSourceError(
                f"s2sad differentiates functions, not bound methods ({func.__qualname__} of "
                f"a {type(func.__self__).__name__})",
                filename=func.__code__.co_filename, lineno=func.__code__.co_firstlineno,
                hint="Write the computation as a module-level function of the values to "
                     "differentiate, passing what it needs from the object as arguments.")
        if not isinstance(func, types.FunctionType):
            raise NoSourceError(
                f"s2sad can only differentiate Python functions, got {type(func).__name__} {func!r}",
                hint="Wrap it in a `def` written in a .py file.")
        lifted = getattr(func, "__s2sad_source__", None)  # (lifted_function's)
        parsed = _parsed(func) if lifted is None else lifted[:3]
        closure = {}
        if func.__closure__:
            closure = dict(zip(func.__code__.co_freevars, func.__closure__, strict=True))
        filename, tree, all_lines = parsed
        return cls(func, clone(tree), filename, all_lines, func.__globals__, closure,
                   outer=lifted[3] if lifted is not None else None)

    @staticmethod
    def _read(func):
        """``(filename, tree, lines of the file)`` of a function, read and parsed."""
        filename = inspect.getsourcefile(func) or func.__code__.co_filename
        module = None
        found = _lines_by_indentation(func.__code__)
        if found is not None:  # (cut where the indentation says, good if it parses so)
            lines, first = found
            try:
                module = gast.parse(textwrap.dedent("".join(lines)))
            except SyntaxError:
                module = None
            if module is None or len(module.body) != 1 or not isinstance(
                    module.body[0], (gast.FunctionDef, gast.AsyncFunctionDef)) or \
                    module.body[0].name != func.__code__.co_name:
                module = None
        if module is None:
            try:
                # the code object's own lines: inspect would follow a functools.wraps
                # wrapper's __wrapped__ to the function it wraps, and differentiate that one
                lines, first = inspect.getsourcelines(func.__code__)
            except (OSError, TypeError) as exc:
                raise NoSourceError(
                    f"cannot read the source of {func.__qualname__!r} ({exc})",
                    filename=func.__code__.co_filename, lineno=func.__code__.co_firstlineno,
                    hint="s2sad transforms source code: define the function in a .py file "
                         "(functions typed at a REPL or built with exec() have no "
                         "source).") from None
            if func.__name__ == "<lambda>":
                tree = _lambda_tree(func, filename)
                if tree is None:
                    raise NoSourceError(
                        "s2sad cannot tell this lambda from another one on its line",
                        filename=filename, lineno=first, text=lines[0] if lines else None,
                        hint="Give it a name with `def`.")
                return filename, tree, linecache.getlines(filename) or lines
            try:
                module = gast.parse(textwrap.dedent("".join(lines)))
            except SyntaxError as exc:  # e.g. a decorator line cut in the middle
                raise NoSourceError(
                    f"cannot parse the source of {func.__qualname__!r}: {exc.msg}",
                    filename=filename, lineno=first) from None
        tree = module.body[0]
        if isinstance(tree, gast.AsyncFunctionDef):
            raise UnsupportedSyntaxError(
                "an `async def`", filename, first, lines[0] if lines else None, 0,
                "Differentiate synchronous code: define the function with a plain `def`.")
        if not isinstance(tree, gast.FunctionDef):
            raise UnsupportedSyntaxError(
                f"{type(tree).__name__} (only plain `def` functions)", filename, first,
                lines[0] if lines else None, 0)
        gast.increment_lineno(module, first - 1)
        all_lines = linecache.getlines(filename) or lines
        return filename, _mangled(tree, func.__qualname__), all_lines

    def lifted_function(self, tree: gast.FunctionDef) -> types.FunctionType:
        """A module-level function made of ``tree``, a ``def`` of this function's (its
        free names made parameters), whose source s2sad reads as ``tree``: at the user's
        lines, reading this function's globals (``s2sad.grad(inner)(x)`` inside it).

        >>> def f(x):
        ...     return x
        >>> tree = gast.parse("def g(y, a):\\n    return y * a").body[0]
        >>> g = FunctionSource.of(f).lifted_function(tree)
        >>> g(2.0, 3.0), FunctionSource.of(g).tree is not tree
        (6.0, True)
        """
        import ast
        module = gast.gast_to_ast(gast.Module([clone(tree)], []))
        ast.fix_missing_locations(module)
        code = compile(module, f"<s2sad: {tree.name}, lifted from {self.filename}>", "exec")
        body = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        func = types.FunctionType(body, self.globals, tree.name)
        func.__s2sad_source__ = (self.filename, clone(tree), self.lines,
                                 self.outer or self.tree)
        return func

    def line(self, lineno: int | None) -> str | None:
        if lineno is None or not (1 <= lineno <= len(self.lines)):
            return None
        return self.lines[lineno - 1]

    def syntax_error(self, construct: str, node, hint: str | None = None) -> UnsupportedSyntaxError:
        return self.error(UnsupportedSyntaxError, construct, node, hint)

    def error(self, cls, message: str, node, hint: str | None = None):
        """``cls`` (a located error of :mod:`s2sad.errors`) at ``node``: at the line of the
        function it was inlined from, where it was (``node.origin``, the user's lines
        from this function's down to that one: :meth:`Normalize.frames`), those lines
        shown as a traceback shows its calls."""
        if self.shown:
            message, hint = self.as_written(message), hint and self.as_written(hint)
        origin = getattr(node, "origin", ())
        if len(origin) > 1 or origin and origin[-1][0] != self.filename:  # (one: inlined
            filename, lineno, text, col, _ = origin[-1]  # into s2sad's flat function of *args)
            col = _inlined_construct_column(node, lineno, text, col)
            origin = origin[:-1] + ((filename, lineno, text, col, origin[-1][4]),)
            return cls(message, filename, lineno, text, col, hint, calls=origin)
        lineno = getattr(node, "lineno", None)
        col = self._col(node)
        return cls(message, self.filename, lineno, self.line(lineno),
                   col if col is None else col + _construct_offset(node), hint)

    def as_written(self, text: str) -> str:
        """``text`` with the names s2sad made shown as the user wrote them (``shown``).

        >>> source = FunctionSource.of(clone)
        >>> source.shown["acc__total"] = "acc.total"
        >>> source.as_written("`acc__total += ...` on 'acc__total'")
        "`acc.total += ...` on 'acc.total'"
        """
        return re.sub(r"\b\w+__\w+\b", lambda m: self.shown.get(m.group(0), m.group(0)), text)

    def _col(self, node) -> int | None:
        col = getattr(node, "col_offset", None)
        if col is None:
            return None
        # the tree was parsed dedented: add the indentation of the def back
        text = self.line(getattr(self.outer or self.tree, "lineno", None)) or ""
        return col + len(text) - len(text.lstrip())

    def segment(self, node) -> str:
        """The user's text of a statement, on one line (for comments and messages; a
        statement inlined from another function: its own line there, ``origin``)."""
        origin = getattr(node, "origin", ())
        if len(origin) > 1:
            return " ".join((origin[-1][2] or "").split())
        start, end = node.lineno, getattr(node, "end_lineno", node.lineno) or node.lineno
        text = " ".join(line.strip() for line in self.lines[start - 1:end])
        return " ".join(text.split())

    def is_builtin(self, name: str) -> bool:
        """Does the free name ``name`` stand for Python's builtin of that name?"""
        if name in self.extra or name in self.closure or name in self.globals:
            return False
        return hasattr(builtins, name)

    def resolve(self, name: str):
        """Value of a free name: closure cell, module global or builtin. KeyError if none.

        A function (or other callable) found in a cell or a module's globals is noted for
        the build that reads it (:func:`recording`): inlined or called, it is part of the
        gradient, which must be built again when the name is given another one."""
        if name in self.extra:
            return self.extra[name]
        if name in self.closure:
            cell = self.closure[name]
            value = cell.cell_contents
            _note(("cell", cell, None, value), value)
            return value
        if name in self.globals:
            value = self.globals[name]
            _note(("item", self.globals, name, value), value)
            return value
        builtins_ns = self.globals.get("__builtins__", builtins)
        if isinstance(builtins_ns, types.ModuleType):
            builtins_ns = vars(builtins_ns)
        return builtins_ns[name]


def user_code(func) -> bool:
    """Is ``func`` the user's own code (to be inlined), not a library's nor s2sad's?

    >>> import numpy as np
    >>> user_code(np.interp), user_code(user_code), user_code(len)
    (False, False, False)
    """
    import sysconfig
    try:
        path = inspect.getsourcefile(func) or ""
    except TypeError:
        return False
    paths = sysconfig.get_paths()
    library = [paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)]
    return bool(path) and not any(path.startswith(p) for p in library) and \
        not path.startswith(__file__.rsplit("/", 1)[0])


def _mangled(tree, qualname: str):
    """``tree`` with its private names spelled as Python reads them in a class
    (``self.__s`` in a method of ``Priv`` is ``self._Priv__s``): inlined elsewhere, the
    method must read the same attribute.

    >>> tree = gast.parse("def f(self, x):\\n    return self.__s * x + self.__len__()").body[0]
    >>> from s2sad.codegen import unparse
    >>> print(unparse(_mangled(tree, "Priv.f")).splitlines()[1])
        return self._Priv__s * x + self.__len__()
    """
    parts = qualname.split(".")[:-1]
    owner = next((part for i, part in reversed(list(enumerate(parts)))
                  if part != "<locals>" and (i + 1 == len(parts) or parts[i + 1] != "<locals>")),
                 None)
    if owner is None or not owner.strip("_"):
        return tree
    prefix = "_" + owner.lstrip("_")

    def mangle(name):
        private = name is not None and name.startswith("__") and not name.endswith("__")
        return prefix + name if private else name
    for node in gast.walk(tree):
        if isinstance(node, gast.Attribute):
            node.attr = mangle(node.attr)
        elif isinstance(node, gast.Name):
            node.id = mangle(node.id)
        elif isinstance(node, gast.keyword):
            node.arg = mangle(node.arg)
    return tree


def _lambda_tree(func, filename: str):
    """A lambda's ``def`` (``def lambda_(x): return body``), from the file it is written
    in: the one lambda of the file at the line of its code, with its parameters, whose
    body holds the column where its code starts. None where that is not one lambda."""
    code = func.__code__
    lines = linecache.getlines(filename)
    try:
        module = gast.parse("".join(lines))
    except SyntaxError:
        return None
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    found = [node for node in gast.walk(module) if isinstance(node, gast.Lambda) and
             node.lineno == code.co_firstlineno and
             tuple(a.id for a in node.args.posonlyargs + node.args.args +
                   node.args.kwonlyargs) == params]
    if len(found) > 1:
        positions = getattr(code, "co_positions", lambda: ())()  # (Python >= 3.11)
        columns = [c for _, _, c, _ in positions if c is not None]
        found = [node for node in found if columns and any(
            node.body.col_offset <= c and (node.body.lineno < node.body.end_lineno or
                                           c < node.body.end_col_offset) for c in columns)]
    if len(found) != 1:
        return None
    lam = found[0]
    ret = gast.copy_location(gast.Return(lam.body), lam)
    return gast.copy_location(gast.FunctionDef("lambda_", lam.args, [ret], [], None, None),
                              lam)


# --- what a build read: the functions it inlined, to be checked at each call ----------------

_RECORDING = threading.local()


@contextmanager
def recording():
    """Collect, while a gradient is built, the callables its source names resolved to:
    ``(kind, holder, key, value)`` with ``kind`` ``"item"`` (``holder[key] is value``, a
    module global), ``"cell"`` (``holder.cell_contents is value``) or ``"attr"``
    (``getattr(holder, key) is value``: a Python function's ``__code__``,
    ``__defaults__`` and ``__kwdefaults__``), ``"items"`` (``holder`` a list still
    holding the objects ``value``); for an argument's objects, ``"own"``, ``"class"`` and
    ``"length"`` (see ``note_method``, ``note_path``, ``note_length``). A build within the
    build (of an inner derivative) records its own.

    >>> import math
    >>> source = FunctionSource(None, None, "<f>", [], {"log": math.log, "k": 2.0})
    >>> with recording() as read:
    ...     _ = source.resolve("log"), source.resolve("k")
    >>> [(kind, key) for kind, _, key, _ in read]
    [('item', 'log')]
    """
    outer = getattr(_RECORDING, "read", None)
    _RECORDING.read = read = {}
    try:
        yield read.values()
    finally:
        _RECORDING.read = outer


def _note(dependency: tuple, value, always: bool = False) -> None:
    read = getattr(_RECORDING, "read", None)
    if read is None or not always and not callable(value):
        return  # (numbers and arrays are read live; a class is noted: a notebook defines
        # one again)
    kind, holder, key, _ = dependency
    read.setdefault((kind, id(holder), key), dependency)
    if isinstance(value, types.FunctionType):
        for attribute in ("__code__", "__defaults__", "__kwdefaults__"):
            read.setdefault(("attr", id(value), attribute),
                            ("attr", value, attribute, getattr(value, attribute)))
        keywords = value.__kwdefaults__  # (changed in place too: Python reads it at each
        if keywords:                     # call; its keys, then its very values)
            read.setdefault(("items", id(keywords), "keys"),
                            ("items", keywords, "keys", tuple(keywords)))
            read.setdefault(("items", id(keywords), "values"),
                            ("items", keywords.values(), "values", tuple(keywords.values())))


def note_attribute(holder, name: str, value, source: "FunctionSource | None" = None,
                   holder_name: str | None = None) -> None:
    """A callable read as ``module.name`` (``helpers.act``), or as an attribute of an
    object or class of the user's (``model.act``, ``Model.penalty``): noted like a global,
    so that the attribute given another function makes the gradient be built again; and,
    for an object that the free name ``holder_name`` of ``source`` gave, that name too."""
    if isinstance(holder, types.ModuleType):
        if holder.__name__.split(".")[0] not in _NOT_REBOUND:
            _note(("attr", holder, name, value), value)  # (NumPy's own are not rebound)
        return
    from .descriptors import describe
    if not callable(value) or getattr(_RECORDING, "read", None) is None:
        return
    if isinstance(holder, type):
        if holder.__module__.split(".")[0] not in _LIBRARIES | {"builtins"}:
            _note(("attr", holder, name, value), value)
        return
    desc = describe(holder)
    if type(desc) is not tuple or desc[0] != "object":
        return
    own = getattr(holder, "__dict__", None)
    if own is not None and name in own:  # its own attribute: model.act = np.tanh
        _note(("item", own, name, value), value)
        _note_state(holder)
    else:  # its class's: a def, or any attribute that reads the same each time
        found = getattr(type(holder), name, MISSING)
        if found is not MISSING and found is getattr(type(holder), name, None):
            note_method(type(holder), name, found, obj=holder, own=own is not None)
    if source is not None and holder_name is not None:
        note_object(source, holder_name, holder)


def note_object(source: "FunctionSource", name: str, obj) -> None:
    """``obj``, what the free name ``name`` of ``source`` gave, had a method inlined
    (``model.act(z)``): noted, so that the name given another object, or ``obj`` given an
    attribute of its own named like a method it had inlined (``note_method``), makes the
    gradient be built again."""
    if name in source.closure:
        _note(("cell", source.closure[name], None, obj), obj, always=True)
    elif name in source.globals:
        _note(("item", source.globals, name, obj), obj, always=True)


def note_method(cls, name: str, value, parameter: str | None = None,
                own: bool = True, obj=None) -> None:
    """A method of ``cls`` (``value``, what ``cls.name`` gives), inlined for
    ``obj.name(...)``: noted, so that the class given another makes the gradient be built
    again; and, for an object that is the argument ``parameter`` and ``own`` attributes,
    that its own ``__dict__`` does not hide it (tested by the entry: the argument's
    description says it on the general path)."""
    _note(("attr", cls, name, value), value)
    read = getattr(_RECORDING, "read", None)
    if read is not None and parameter is not None and own:
        read.setdefault(("own", parameter, name), ("own", parameter, name, None))
    if obj is not None:  # (an object the build saw: its class and own attributes, now)
        if own:
            _note(("item", vars(obj), name, MISSING), obj, always=True)
        _note_state(obj)


def note_path(path: str | None, value, holder=None, name: str | None = None) -> None:
    """An object reached through another's attribute (``self.layer``) had a method inlined:
    for an argument's (``path``, ``"self.layer"``; ``value`` its class), the entry tests
    its class (the argument's description says it on the general path); for a module's
    object's, the attribute is noted (``holder.name is value``)."""
    read = getattr(_RECORDING, "read", None)
    if read is None:
        return
    if path is not None:
        read.setdefault(("class", path, None), ("class", path, None, value))
    else:
        _note(("attr", holder, name, value), value, always=True)


def note_function(path: str, value) -> None:
    """A function in an argument's attributes (``path``, ``"model.act"``) was called as
    the function ``value`` it held: the entry tests that it still holds it (the
    argument's description says it on the general path)."""
    read = getattr(_RECORDING, "read", None)
    if read is not None:
        read.setdefault(("same", path, None), ("same", path, None, value))


def note_dtype(path: str, kind: str) -> None:
    """An array in an argument's attributes (``path``, ``"p.idx"``) was taken to have
    this dtype kind (``"i"``: a store into it truncates): the entry tests it (after its
    class, ``note_path``; the argument's description says both on the general path)."""
    read = getattr(_RECORDING, "read", None)
    if read is not None:
        read.setdefault(("dtype", path, None), ("dtype", path, kind, None))


def note_undescribed(path: str, name: str) -> None:
    """An attribute ``name`` of an object in an argument's attributes (``path``,
    ``"model.inner"``) was read where the argument's description said nothing of it (a
    class's attribute, a string, a tuple of Python floats): the entry tests that it still
    says nothing (``descriptors.undescribed``: not made complex, nor an array)."""
    read = getattr(_RECORDING, "read", None)
    if read is not None:
        read.setdefault(("undescribed", path, name), ("undescribed", path, name, None))


def note_number(path: str, kind: str) -> None:
    """A NumPy number in an argument's attributes (``path``) was read as one of this
    dtype kind: the entry tests both (``descriptors.numpy_number``; an np.matrix of that
    kind is no NumPy number)."""
    read = getattr(_RECORDING, "read", None)
    if read is not None:
        read.setdefault(("number", path, None), ("number", path, kind, None))


def note_real(holder, key, how: str) -> None:
    """A number or array a free name gave (``how`` ``"item"``: ``holder[key]``, a module
    global; ``"cell"``: a closure cell's; ``"attr"``: ``getattr(holder, key)``) was real when
    a program of real values was built: noted, so that it is complex at a later call
    (its rules are then the complex ones) makes the gradient be built again."""
    read = getattr(_RECORDING, "read", None)
    if read is not None:
        read.setdefault(("real", id(holder), key), ("real", holder, key, how))


def note_type(holder, key, how: str) -> None:
    """A free name a loop walks, or whose class or items the build read (``holder``, ``key``
    and ``how`` as for ``note_real``): its type and whether it holds foreign data
    (``held_foreign``) noted, so that a later call where either differs (a module's list
    rebound to a dict: walked by index, ``L[i]`` would read a value; a list of arrays given
    an np.matrix) makes the gradient be built again."""
    read = getattr(_RECORDING, "read", None)
    if read is not None:
        value = read_value(holder, key, how)
        read.setdefault(("type", id(holder), key),
                        ("type", holder, key, (how, type(value), held_foreign(value))))


def walked_by_key(value) -> bool:
    """Must a loop over ``value`` walk ``list(value)``, not ``value[i]``: is it a dict, a
    set, a dict's view, or another mapping or set (``OrderedDict``, ``Counter``)?

    >>> [walked_by_key(v) for v in ({1: 2.0}, {1}, {1: 2.0}.values(), [1], np.ones(2))]
    [True, True, True, False, False]
    """
    return isinstance(value, (abc.Mapping, abc.Set, abc.MappingView))


def iterator(value) -> bool:
    """Is ``value`` an iterator (a generator, ``map(...)``, ``iter(xs)``), which a loop over
    it consumes: read outside the function, a second call would find it spent?

    >>> iterator(iter([1.0])), iterator(x for x in ()), iterator([1.0]), iterator(range(2))
    (True, True, False, False)
    """
    return isinstance(value, abc.Iterator)


def iterator_refusal(name: str) -> tuple[str, str]:
    """The message and advice of a refusal of ``name``, an iterator read from outside the
    function (``iterator``): a loop consumes it, so a second call finds it spent, and the
    gradient's sweeps cannot read it again."""
    return (f"s2sad does not read {name!r}, an iterator from outside the function (a "
            "generator, map(...), iter(...)): each call would consume it",
            f"Make a list of it outside the function ({name} = list(...)), or pass its "
            "items as an argument.")


def held_foreign(value, depth: int = 0, walked: bool = False) -> bool:
    """Do the items of ``value`` (what an index, a loop or ``list(value)`` gives: a dict's
    keys and values, to four levels; ``walked``: a dict's keys alone, what a loop over it
    gives) hold data whose class s2sad does not model (an np.matrix, a masked array:
    ``descriptors.unmodeled_data``)? An array subclass's rows are of its class.

    >>> M = np.ma.masked_array([1.0, 2.0], mask=[0, 1])
    >>> held_foreign([np.ones(2), M]), held_foreign({1, 3}), held_foreign(M), held_foreign([[M]])
    (True, False, True, True)
    >>> held_foreign({0: M}), held_foreign({0: M}, walked=True)
    (True, False)
    """
    from .descriptors import unmodeled_data
    if isinstance(value, np.ndarray):
        return type(value) is not np.ndarray and value.ndim > 0
    if depth >= 4 or isinstance(value, (str, bytes, range)) or \
            not isinstance(value, (abc.Collection, abc.MappingView)):
        return False
    items = (list(value.keys()) + ([] if walked else list(value.values()))) \
        if isinstance(value, abc.Mapping) else value
    return any(unmodeled_data(item) or held_foreign(item, depth + 1) for item in items)


def same_type(holder, key, noted: tuple) -> bool:
    """Does what ``holder`` and ``key`` read now (``noted``: ``(how, its type, held_foreign
    of it)``, as ``note_type`` noted it) have that type, and hold foreign data as it did?

    >>> same_type({"L": [1.0]}, "L", ("item", list, False))
    True
    >>> same_type({"L": [np.ma.masked_array([1.0])]}, "L", ("item", list, False))
    False
    """
    now = read_value(holder, key, noted[0])
    return type(now) is noted[1] and held_foreign(now) == noted[2]


def read_value(holder, key, how: str):
    """What ``note_real``'s ``holder``, ``key`` and ``how`` read now (None if nothing).

    >>> read_value({"k": 2.0}, "k", "item"), read_value({}, "k", "item")
    (2.0, None)
    """
    try:
        if how == "item":
            return holder.get(key)
        if how == "cell":
            return holder.cell_contents
        return getattr(holder, key)
    except Exception:  # (an empty cell, an attribute gone: the call says so itself)
        return None


def complex_read(holder, key, how: str) -> bool:
    """Is what ``holder``, ``key`` and ``how`` read now (``read_value``) complex, or a
    list, tuple or dict holding a complex value (``complex_held``)?

    >>> complex_read({"k": 1j}, "k", "item"), complex_read({"k": np.ones(2)}, "k", "item")
    (True, False)
    """
    return complex_held(read_value(holder, key, how))


def complex_held(value, depth: int = 0) -> bool:
    """Is ``value`` a complex number or array, or a list, tuple, dict, set, deque or a
    dict's view holding one (its items read by index, key or a loop: ``WS[0]``)?

    >>> complex_held([np.ones(2), {"w": np.ones(2) * 1j}]), complex_held((np.ones(2), 2.0))
    (True, False)
    >>> complex_held({1 + 2j, 3.0}), complex_held({1j: 2.0}.keys())
    (True, True)
    """
    if isinstance(value, (complex, np.complexfloating)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "c"
    if depth < 4 and type(value) in (list, tuple, dict):
        items = value.values() if type(value) is dict else value
        return any(complex_held(item, depth + 1) for item in items)
    if depth < 4 and isinstance(value, (abc.Collection, abc.MappingView)) and \
            not isinstance(value, (str, bytes, range)):
        items = list(value.keys()) + list(value.values()) \
            if isinstance(value, abc.Mapping) else value
        return any(complex_held(item, depth + 1) for item in items)
    return False


def note_length(path: str, length: int) -> None:
    """A list of objects in an argument's attributes (``path``, ``"model.layers"``) was
    walked item by item: the entry tests its length (after its class, ``note_path``; the
    argument's description says both on the general path)."""
    read = getattr(_RECORDING, "read", None)
    if read is not None:
        read.setdefault(("length", path, None), ("length", path, length, None))


def note_items(seq) -> None:
    """A module's list of objects (``LAYERS``, ``net.layers``) was walked item by item:
    noted, so that an item added, removed or replaced makes the gradient be built again."""
    _note(("items", seq, None, tuple(seq)), seq, always=True)


def same_items(seq, items: tuple) -> bool:
    """Does ``seq`` hold ``items``, the very objects, in order? (``==`` would ask the
    items' ``__eq__``: two equal layers are not the same one.)

    >>> a, b = object(), object()
    >>> same_items([a, b], (a, b)), same_items([a], (a, b)), same_items([b, a], (a, b))
    (True, False, False)
    """
    return len(seq) == len(items) and all(map(operator.is_, seq, items))


def _note_state(obj) -> None:
    """Note that ``obj`` keeps its class and its ``__dict__`` (``obj.__class__ = Other``
    changes its methods; ``obj.__dict__ = {...}`` its own attributes)."""
    _note(("attr", obj, "__class__", type(obj)), obj, always=True)
    if getattr(obj, "__dict__", None) is not None:
        _note(("attr", obj, "__dict__", obj.__dict__), obj, always=True)


def note_reads(dependencies) -> None:
    """Note, for the build under way, what another build read (a gradient it inlines;
    not the tests of its own arguments, ``"own"``)."""
    read = getattr(_RECORDING, "read", None)
    if read is not None:
        for kind, holder, key, value in dependencies:
            if kind not in ARGUMENT_READS:
                read.setdefault((kind, id(holder), key), (kind, holder, key, value))


def still_read(dependencies) -> bool:
    """Do the names a build resolved still give what they gave then? (The methods of an
    argument's class, ``"own"``, and the classes of its members, ``"class"``, are in its
    description: not tested here, nor the lengths of its lists of objects, ``"length"``.)"""
    for kind, holder, key, value in dependencies:
        if kind in ARGUMENT_READS:
            continue
        if kind == "real":
            if complex_read(holder, key, value):
                return False
        elif kind == "type":
            if not same_type(holder, key, value):
                return False
        elif kind == "items":
            if not same_items(holder, value):
                return False
        elif kind == "item":
            if holder.get(key, MISSING) is not value:
                return False
        elif kind == "cell":
            try:
                if holder.cell_contents is not value:
                    return False
            except ValueError:  # (an empty cell)
                return False
        elif getattr(holder, key) is not value:
            return False
    return True


MISSING = object()  # (what a name or key that is not there gives)
# the reads of an argument's attributes the entry of a variant tests (``dispatch``), not
# ``still_read``: its description says them on the general path
ARGUMENT_READS = ("own", "class", "length", "dtype", "same", "undescribed", "number")
_LIBRARIES = LIBRARIES | frozenset({"scipy", "s2sad", "jax", "torch"})
_NOT_REBOUND = _LIBRARIES | sys.stdlib_module_names  # (made once: NumPy's, math's...)
