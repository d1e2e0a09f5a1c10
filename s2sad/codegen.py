"""Tree -> source text -> compiled function, registered in ``linecache``.

Comments cannot live in an AST, so passes put a marker statement where a
comment goes (``comment(text)``) and ``unparse`` turns it into ``# text``.

>>> import gast
>>> body = [comment('Analyzing the line: "y = 2.0 * x"'), gast.parse("s_x = 2.0").body[0]]
>>> print(unparse(gast.Module(body, [])))
# Analyzing the line: "y = 2.0 * x"
s_x = 2.0
"""

from __future__ import annotations

import ast
import itertools
import linecache
import math
import re
import sys
import types

import gast

from . import trees
from .errors import DifferentiationError
from .backends import (BY_MODULE, NUMPY, SHORT_NAMES, SOURCE_MODULE, Backend, missing_backend,
                       numpy_module, target_backend, unavailable)

_MARK = trees.COMMENT_MARK
_comments: dict[int, str] = {}
_notes: set[int] = set()  # the comments that stand on their own
_ids = itertools.count()


def comment(text: str, note: bool = False) -> gast.Expr:
    """A statement that ``unparse`` prints as ``# text``. A comment heads the code after
    it and goes where that code goes; a ``note`` says something on its own, and stays
    (``is_note``)."""
    key = next(_ids)
    _comments[key] = text
    if note:
        _notes.add(key)
    return gast.Expr(gast.Name(f"{_MARK}{key}", gast.Load(), None, None))


def comment_text(stmt) -> str | None:
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Name) and \
            stmt.value.id.startswith(_MARK):
        return _comments[int(stmt.value.id[len(_MARK):])]
    return None


def is_note(stmt) -> bool:
    """Is ``stmt`` a comment made with ``note=True``?

    >>> is_note(comment("m gets no gradient", note=True)), is_note(comment("Analyzing"))
    (True, False)
    """
    return comment_text(stmt) is not None and int(stmt.value.id[len(_MARK):]) in _notes


class _Printable(trees.Transformer):
    """What ``ast.unparse`` needs to print valid Python of the meaning intended: a negative
    number as a negation (the optimizer folds ``-(1.5)`` into the constant ``-1.5``, which
    printed bare as the base of a power, ``-1.5 ** 2``, would read ``-(1.5 ** 2)``), and
    ``pass`` in a block left empty.

    >>> tree = ast.Expression(ast.BinOp(ast.Constant(-1.5), ast.Pow(), ast.Constant(2)))
    >>> ast.unparse(_Printable().visit(tree))
    '(-1.5) ** 2'
    """

    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, (int, float)) and not isinstance(value, bool) and \
                math.copysign(1.0, value) < 0:
            return ast.copy_location(ast.UnaryOp(ast.USub(), ast.Constant(-value)), node)
        return node

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if field == "body" and isinstance(block, list) and not block and \
                    isinstance(node, (ast.For, ast.While, ast.If, ast.FunctionDef, ast.With)):
                block.append(ast.Pass())
        return node


_CONVERT: dict = {}  # gast node class -> the function that converts one
_LIST_FIELDS = ("type_params", "type_ignores", "decorator_list")  # newer than gast's nodes
_CONTEXTS = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}  # shared,
# as the trees Python's own parser makes share them


def _to_ast(node):
    """``gast.gast_to_ast`` for the nodes generated code has, in one pass that also makes
    it printable (see ``_Printable``): a negative number becomes a negation, an empty block
    ``pass``. Raises KeyError on a node it does not know (``unparse`` then takes gast's).

    >>> ast.unparse(_to_ast(gast.parse("def f(a, *b, c=1.5):\\n    return -a ** 2")))
    'def f(a, *b, c=1.5):\\n    return -a ** 2'
    """
    if type(node) is list:
        return [_to_ast(item) for item in node]
    if not isinstance(node, gast.AST):
        return node
    convert = _CONVERT.get(node.__class__)
    if convert is None:
        convert = _CONVERT[node.__class__] = _converter(node.__class__)
    return convert(node)


def _converter(cls):
    """The function that converts a node of gast class ``cls`` (its fields converted too)."""
    if cls is gast.Name:
        def name(node):
            new = ast.Name.__new__(ast.Name)
            new.__dict__ = {"id": node.id, "ctx": _CONTEXTS[node.ctx.__class__]}
            return new
        return name
    if cls is gast.Constant:
        def constant(node):
            value = node.value
            if isinstance(value, (int, float)) and not isinstance(value, bool) and \
                    math.copysign(1.0, value) < 0:
                return ast.UnaryOp(ast.USub(), ast.Constant(-value))
            return ast.Constant(value, node.kind)
        return constant
    if cls is gast.arguments:
        def arguments(node):
            return ast.arguments(
                [_arg(a) for a in node.posonlyargs], [_arg(a) for a in node.args],
                _arg(node.vararg), [_arg(a) for a in node.kwonlyargs],
                _to_ast(node.kw_defaults), _arg(node.kwarg), _to_ast(node.defaults))
        return arguments
    if cls in _CONTEXTS:
        context = _CONTEXTS[cls]
        return lambda node: context
    target = getattr(ast, cls.__name__, None)
    if target is None or cls is gast.Param or cls.__name__ in ("ExceptHandler", "alias"):
        raise KeyError(cls.__name__)
    fields = target._fields
    block = target in _BLOCKS
    statement = issubclass(target, ast.stmt)

    def convert(node):
        old = node.__dict__
        new_fields = {}
        for field in fields:
            value = old.get(field)
            if type(value) is list:
                value = [_to_ast(item) for item in value]
            elif isinstance(value, gast.AST):
                value = _to_ast(value)
            elif value is None and field in _LIST_FIELDS:
                value = []
            new_fields[field] = value
        if block and not new_fields["body"]:
            new_fields["body"] = [ast.Pass()]
        if statement:
            new_fields["lineno"] = 0  # (read by ast.unparse for type comments; there are none)
        new = target.__new__(target)
        new.__dict__ = new_fields
        return new
    return convert


_BLOCKS = (ast.For, ast.While, ast.If, ast.FunctionDef, ast.With)


def _arg(node):
    """A parameter (a gast ``Name``) as an ``ast.arg``."""
    if node is None:
        return None
    return ast.arg(node.id, _to_ast(node.annotation), getattr(node, "type_comment", None))


if sys.version_info < (3, 11):
    class _Unparser(ast._Unparser):
        """Python 3.10's ``ast.unparse`` writes ``(a, b) = ...`` and ``for (i, x) in ...``;
        3.11's ``a, b = ...``: generated code reads the same on both (3.11's rule: a tuple
        is bare where its place binds it looser than anything, as an assignment's target)."""

        def visit_Tuple(self, node):
            with self.delimit_if("(", ")", len(node.elts) == 0 or
                                 self.get_precedence(node) > ast._Precedence.TUPLE):
                self.items_view(self.traverse, node.elts)

        def visit_Assign(self, node):
            for target in node.targets:
                self.set_precedence(ast._Precedence.TUPLE, target)
            super().visit_Assign(node)

        def _for_helper(self, fill, node):
            self.set_precedence(ast._Precedence.TUPLE, node.target)
            super()._for_helper(fill, node)

    def _unparse(tree) -> str:
        return _Unparser().visit(tree)
else:
    _unparse = ast.unparse


def unparse(node) -> str:
    try:
        tree = _to_ast(node)
    except KeyError:  # a node the direct conversion does not know
        tree = ast.fix_missing_locations(_Printable().visit(gast.gast_to_ast(node)))
    text = _unparse(tree)
    return re.sub(rf"^(\s*){_MARK}(\d+)$",
                  lambda m: f"{m.group(1)}# {_comments[int(m.group(2))]}", text, flags=re.M)


def register(filename: str, text: str) -> None:
    """Make ``text`` visible to tracebacks and ``inspect.getsource`` under ``filename``."""
    lines = text.splitlines(True)
    linecache.cache[filename] = (len(text), None, lines, filename)




class Imports:
    """The names generated code uses for modules and helpers, collision-free.

    Only what the final code mentions is imported in its header.

    ``target`` is the array backend (a :class:`s2sad.backends.Backend`, or its name).
    The compiler always works against NumPy (the
    derivative rules are written once, against ``np``; the user's ``np.sin`` is
    looked up as ``numpy.sin``); only the generated *imports* change. For
    CuPy, NumPy is imported as ``import cupy as cp``, NumPy submodules as
    their CuPy twins, and the user's own names for NumPy (``np``, ``numpy``) are
    re-pointed at ``cp`` in the final code, so the forward sweep (``cp.sin(x)``,
    ``cp.zeros(3)``) and the reverse sweep run on the GPU. Nothing imports CuPy
    here: the source can be generated and printed without it.

    >>> import gast, numpy
    >>> from s2sad.names import Namer
    >>> from s2sad.source import FunctionSource
    >>> tree = gast.parse("def f(x):\\n    return np.sum(np.sin(x))").body[0]
    >>> source = FunctionSource(None, tree, "demo.py", [], {"np": numpy})
    >>> from s2sad.backends import CUPY
    >>> imports = Imports(Namer.for_tree(tree), source, CUPY)
    >>> imports.numpy(), imports.lines["cp"]
    ('cp', 'import cupy as cp')
    >>> imports.user_global("np", numpy, (source.globals, "np"))
    >>> imports.header(tree), unparse(tree).splitlines()[1]
    (['import cupy as cp'], '    return cp.sum(cp.sin(x))')
    """

    def __init__(self, namer, source, target: Backend | str = NUMPY):
        self.namer = namer
        self.source = source
        self.backend = target_backend(target) or NUMPY
        self.lines: dict[str, str] = {}   # alias -> import statement
        self.helpers: dict[str, str] = {}  # helper name -> alias
        self.modules: dict[str, str] = {}  # module name -> alias
        self.live: dict[str, object] = {}  # user globals read at each call
        self.renamed: dict[str, str] = {}  # the user's name for NumPy -> the target's alias
        self.lacking: dict[str, tuple] = {}  # a NumPy function the target lacks, by name

    def imported_name(self, name: str) -> str:
        """The module generated code imports for module ``name``: itself, or for the
        CuPy target, ``cupy...`` for ``numpy...``."""
        return self.backend.imported_name(name)

    def _import_line(self, imported: str, alias: str) -> str:
        return f"import {imported}" if alias == imported else f"import {imported} as {alias}"

    def module(self, module) -> str:
        name = module.__name__
        if name not in self.modules:
            imported = self.imported_name(name)
            short = SHORT_NAMES.get(imported, imported.split(".")[-1])
            same = False
            if imported == name:
                try:
                    same = self.source.resolve(short) is module
                except KeyError:
                    pass
            alias = short if same and short not in self.source.locals else self.namer.claim(short)
            self.modules[name] = alias
            self.lines[alias] = self._import_line(imported, alias)
            self.source.extra[alias] = module  # the compiler resolves it as NumPy, always
        return self.modules[name]

    @property
    def array_module_used(self) -> bool:
        """Has the code so far named NumPy's module (as the target imports it)?"""
        return SOURCE_MODULE in self.modules

    def numpy(self) -> str:
        """The name of the array module in generated code (``np``, or ``cp`` for CuPy)."""
        import numpy
        return self.module(numpy)

    def helper(self, function) -> str:
        """Alias of ``function``, one of s2sad's runtime helpers (a function or a class),
        imported from the module that names it: ``from s2sad.runtime import unbroadcast``
        for one the package gathers, ``from s2sad.runtime.higher import sens_like`` for
        the others (:func:`s2sad.runtime.public_module`). The compiler names a helper by
        object, so a helper moved or renamed is an ImportError in the compiler, not a
        broken generated program.

        >>> import gast
        >>> from s2sad.names import Namer
        >>> from s2sad.runtime import unbroadcast
        >>> from s2sad.runtime.higher import sens_like
        >>> from s2sad.source import FunctionSource
        >>> tree = gast.parse("def f(x):\\n    return x").body[0]
        >>> imports = Imports(Namer.for_tree(tree), FunctionSource(None, tree, "demo.py", [], {}))
        >>> imports.helper(unbroadcast), imports.helper(sens_like)
        ('unbroadcast', 'sens_like')
        >>> imports.lines["unbroadcast"], imports.lines["sens_like"]
        ('from s2sad.runtime import unbroadcast', 'from s2sad.runtime.higher import sens_like')
        """
        from . import runtime
        name = function.__name__
        alias = self._imported(name, runtime.__name__ if getattr(runtime, name, None) is function
                               else runtime.public_module(function.__module__))
        self._note_library(alias, function)
        return alias

    def runtime_constant(self, name: str) -> str:
        """Alias of a constant of :mod:`s2sad.runtime` (``NOTHING``), imported from there."""
        from . import runtime
        assert hasattr(runtime, name), name
        return self._imported(name, runtime.__name__)

    def _note_library(self, alias: str, function) -> None:
        """Remember a helper computed with a library module the target has no twin of (its
        rule entry's ``library`` fact): generated code calling it is refused."""
        from . import registry
        found = registry.facts(function)
        library = found.library if found is not None else ""
        if library and self.backend.lacks_module(library):
            self.lacking[alias] = (library, function.__name__, "helper")

    def _imported(self, name: str, module: str) -> str:
        """Alias of ``name`` imported from ``module`` (the first module asked for it)."""
        if name not in self.helpers:
            alias = self.namer.claim(name)
            self.helpers[name] = alias
            self.lines[alias] = (f"from {module} import {name}" if alias == name
                                 else f"from {module} import {name} as {alias}")
        return self.helpers[name]

    def is_helper(self, alias: str, name: str) -> bool:
        return self.helpers.get(name) == alias

    def helper_functions(self) -> dict:
        """``{alias: function}`` for the helpers generated code imports (what the rule
        table's facts are keyed by)."""
        import sys
        found = {}
        for name, alias in self.helpers.items():
            words = self.lines.get(alias, "").split()  # from <module> import <name> ...
            module = sys.modules.get(words[1]) if len(words) > 3 else None
            if getattr(module, name, None) is not None:
                found[alias] = getattr(module, name)
        return found

    def reference(self, name: str, value) -> str:
        """Alias for a global a derivative rule mentions (numpy, math, a runtime helper)."""
        import types
        from . import runtime
        if isinstance(value, types.ModuleType):
            return self.module(value)
        if getattr(runtime, name, None) is value and value is not None:
            alias = self._imported(name, runtime.__name__)  # (a helper, or MISSING)
            self._note_library(alias, value)
            return alias
        module = getattr(value, "__module__", "") or ""
        if module.startswith("s2sad.runtime") and getattr(value, "__name__", None) == name:
            return self.helper(value)  # (from s2sad.runtime.higher...)
        raise TypeError(f"a derivative rule refers to {name!r}, which is neither a module nor "
                        "a helper of s2sad.runtime")

    def user_global(self, name: str, value, where: tuple) -> None:
        """A global read by the function: a module is imported, anything else is read live
        (``where`` is the namespace and key to read it from at each call).

        For the CuPy target, NumPy is re-pointed: the user's name for ``numpy`` becomes
        the target's alias (see :meth:`header`), a NumPy submodule is imported from CuPy
        under the user's name, and a NumPy function imported by name (``from numpy
        import sin``) is imported from CuPy instead of being read live. (For NumPy,
        NumPy and ``math`` functions are imported too: the derivative was derived for
        them, whatever the name is bound to later.)
        """
        import sys
        import types
        if isinstance(value, types.ModuleType) and sys.modules.get(value.__name__) is value:
            imported = self.imported_name(value.__name__)
            if imported in BY_MODULE:  # NumPy on CuPy, or CuPy itself: the target's alias
                self.renamed[name] = self.numpy()
                return
            self.modules.setdefault(value.__name__, name)
            self.lines[name] = self._import_line(imported, name)
            return
        module = getattr(value, "__module__", None) or ""
        if module.startswith("s2sad.runtime") and callable(value) and \
                getattr(sys.modules.get(module), getattr(value, "__name__", ""), None) is value:
            attribute = value.__name__  # one of s2sad's own helpers: imported, not read live
            from .runtime import public_module  # (s2sad.runtime, not s2sad.runtime.shapes)
            self.lines[name] = f"from {public_module(module)} import {attribute}" + (
                "" if name == attribute else f" as {name}")
            return
        from . import runtime as _runtime
        if module.startswith("s2sad.runtime") and getattr(_runtime, name, None) is value:
            self.lines[name] = f"from s2sad.runtime import {name}"  # (NOTHING, a constant)
            return
        found = _numpy_function(value) or _math_function(value) or \
            _twin_function(value, self.backend)
        if found is not None:  # a library function: its derivative was derived for it, so
            # it is imported, not read live (a call then needs no refreshing of globals)
            module, attribute = found
            stand_in = self.backend.stand_in(module, attribute)
            if self.backend.lacks_function(module, attribute):
                self.lacking[name] = (module, attribute)
            if stand_in is not None:  # a function CuPy lacks: s2sad's own
                module, attribute = stand_in
                self.helpers.setdefault(attribute, name)  # np.linalg.vector_norm: this too
            else:
                module = self.imported_name(module)
            self.lines[name] = (f"from {module} import {attribute}"
                                + ("" if name == attribute else f" as {name}"))
        else:
            self.live[name] = where
            found = _library_object(name, value, self.backend)
            if found is not None and self.backend.lacks_function(*found):
                self.lacking[name] = found  # (scipy.stats.norm on CuPy: read live, refused)

    def header(self, tree) -> list[str]:
        """The import lines of ``tree``, the final code. For the CuPy target this first
        renames, in ``tree``, the user's names for NumPy to the CuPy alias."""
        if self.renamed:
            for node in trees.walk(tree):
                if isinstance(node, gast.Name) and node.id in self.renamed:
                    node.id = self.renamed[node.id]
        if self.backend.lacks or self.backend.twins or self.lacking:
            self._refuse_lacking(tree, tree)
        if self.backend.stand_ins or self.backend.keyword_stand_ins or \
                self.backend.display_stand_ins:
            self._use_stand_ins(tree)
        self._math_by_name(tree)
        used = {n.id for n in trees.walk(tree) if isinstance(n, gast.Name)}
        lines = sorted(line for alias, line in self.lines.items()
                       if alias in used and line.startswith("import "))
        by_module: dict[str, list[str]] = {}
        for alias, line in self.lines.items():
            if alias in used and line.startswith("from "):
                module, names = line[len("from "):].split(" import ", 1)
                by_module.setdefault(module, []).append(names)
        for module in sorted(by_module):
            lines.append(f"from {module} import " + ", ".join(sorted(by_module[module])))
        return lines

    def _math_by_name(self, tree) -> None:
        """Where the user imports ``math`` functions by name (``from math import sin``),
        the rules' ``math.cos`` is written ``cos`` too (imported likewise, when the
        name is free): the user's style, and no attribute lookup per call."""
        alias = self.modules.get("math")
        prefix = "from math import "
        if alias is None or not any(line.startswith(prefix) and " as " not in line
                                    for line in self.lines.values()):
            return
        imports = self

        class ByName(trees.Transformer):
            def visit_Attribute(self, node):
                if isinstance(node.value, gast.Name) and node.value.id == alias and \
                        isinstance(node.ctx, gast.Load):
                    name = node.attr
                    if imports.lines.get(name) != prefix + name:
                        if imports.namer.claim(name) != name:
                            return node  # the name means something else here
                        imports.lines[name] = prefix + name
                    return gast.Name(name, gast.Load(), None, None)
                return self.generic_visit(node)
        ByName().visit(tree)

    def _refuse_lacking(self, node, statement) -> None:
        """Refuse, at the user's line, a call of a NumPy function the target's module lacks
        and s2sad has no stand-in for (``np.geomspace`` on CuPy 14): run, it would fail."""
        if isinstance(node, gast.stmt):
            statement = node
        found = None
        if isinstance(node, gast.Name) and node.id in self.lacking:
            found = self.lacking[node.id]
        elif isinstance(node, gast.Attribute):
            path, base = [node.attr], node.value
            while isinstance(base, gast.Attribute):
                path.append(base.attr)
                base = base.value
            numpy_of = {alias: name for name, alias in self.modules.items()
                        if numpy_module(name) or name in self.backend.twins or
                        self.backend.lacks_module(name)}
            if isinstance(base, gast.Name) and base.id in numpy_of:
                module = ".".join([numpy_of[base.id], *reversed(path[1:])])
                if self.backend.lacks_function(module, node.attr):
                    found = (module, node.attr)
        if found is not None:
            title = self.backend.title
            what = f"{'.'.join(found[:2])} has no {title} twin" if len(found) == 2 else \
                f"{found[0]} has no {title} twin (s2sad's {found[1]} computes with it)"
            instead = self.backend.instead.get(found[:2])
            raise self.source.error(
                DifferentiationError,
                f"{what}, and this code runs on {title} "
                f"(target={self.backend.name!r}, or {title} arrays with target='auto')",
                statement,
                hint=(f"Write {instead} instead, which {title} has; or compute it outside "
                      if instead else "Compute it outside ") +
                "the function and pass the result in, or make the gradient with "
                "target='numpy'.")
        for child in gast.iter_child_nodes(node):
            self._refuse_lacking(child, statement)

    def _use_stand_ins(self, tree) -> None:
        """``cp.linalg.vector_norm`` and the other NumPy functions the target's module
        lacks become s2sad's stand-ins (``s2sad.runtime.cupy_compat.vector_norm``), and so
        do calls the target's function would not take: a keyword it lacks
        (``np.clip(x, min=0.0)``), a list display of numbers and arrays
        (``np.array([x, 1.0])``)."""
        numpy_of = {alias: name for name, alias in self.modules.items()
                    if numpy_module(name) or name in self.backend.twins}
        imports, backend = self, self.backend

        def named(func):
            path, base = [], func
            while isinstance(base, gast.Attribute):
                path.append(base.attr)
                base = base.value
            if path and isinstance(base, gast.Name) and base.id in numpy_of:
                return ".".join([numpy_of[base.id], *reversed(path[1:])]), path[0]
            return None

        def helper(found, ctx):
            return gast.Name(imports.helper(_stand_in(found)), ctx, None, None)

        class StandIns(trees.Transformer):
            def visit_Call(self, node):
                found = named(node.func)
                if found is not None:
                    display = bool(node.args) and isinstance(  # (or a name: a list the
                        node.args[0], (gast.List, gast.Tuple, gast.Name))  # code made)
                    stand_in = backend.call_stand_in(*found, {k.arg for k in node.keywords},
                                                     display)
                    if stand_in is not None:
                        node.func = helper(stand_in, gast.Load())
                return self.generic_visit(node)

            def visit_Attribute(self, node):
                found = named(node)
                if found is not None:
                    stand_in = backend.stand_in(*found)
                    if stand_in is not None:
                        return helper(stand_in, node.ctx)
                return self.generic_visit(node)
        StandIns().visit(tree)
        if backend.python_stand_ins:
            self._python_stand_ins(tree)

    def _python_stand_ins(self, tree) -> None:
        """On a target whose arrays do not take some of Python's operations as NumPy's do
        (:attr:`s2sad.backends.base.Backend.python_stand_ins`), those operations call
        s2sad's stand-ins: on Dask, ``x[i, j]`` is ``index(x, (i, j))`` where an index is
        not a number or a slice, ``round(v)`` is ``python_round(v)``, ``v.tolist()`` is
        ``tolist(v)``."""
        names, imports, source = self.backend.python_stand_ins, self, self.source

        def helper(name):
            return gast.Name(imports.helper(_stand_in((imports.backend.helpers, name))),
                             gast.Load(), None, None)

        counters = _range_counters(tree)

        def basic(node) -> bool:  # (a number or a slice written in the code, a counter)
            if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
                node = node.operand
            return isinstance(node, gast.Slice) or isinstance(node, gast.Constant) and \
                (node.value is None or node.value is Ellipsis or type(node.value) is int) or \
                isinstance(node, gast.Name) and node.id in counters

        class PythonStandIns(trees.Transformer):
            def visit_Subscript(self, node):
                self.generic_visit(node)
                parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
                if "index" not in names or not isinstance(node.ctx, gast.Load) or \
                        all(map(basic, parts)) or isinstance(node.value, gast.Name) and \
                        node.value.id in imports.lines:  # (s_[...]: a helper's index)
                    return node
                key = node.slice
                if any(isinstance(p, gast.Slice) for p in parts):  # (written as an index)
                    key = gast.Subscript(helper("s_"), key, gast.Load())
                return gast.copy_location(gast.Call(helper(names["index"]), [
                    node.value, key], []), node)

            def visit_AugAssign(self, node):
                self.generic_visit(node)
                target = node.target
                if "index" not in names or not isinstance(node.op, gast.Add) or \
                        not isinstance(target, gast.Subscript) or \
                        not isinstance(target.value, gast.Name):
                    return node
                parts = target.slice.elts if isinstance(target.slice, gast.Tuple) else \
                    [target.slice]
                if not any(isinstance(p, gast.Constant) and p.value is None for p in parts):
                    return node
                # (Dask's own setitem reads an index with a new axis wrong)
                from .runtime.higher import add_at
                key = gast.Subscript(helper("s_"), target.slice, gast.Load())
                return gast.copy_location(gast.Assign(
                    [gast.Name(target.value.id, gast.Store(), None, None)],
                    gast.Call(gast.Name(imports.helper(add_at), gast.Load(), None, None), [
                        gast.Name(target.value.id, gast.Load(), None, None), key,
                        node.value], []), None), node)

            def visit_Call(self, node):
                self.generic_visit(node)
                func = node.func
                if isinstance(func, gast.Name) and func.id == "round" and "round" in names \
                        and source.is_builtin("round") and func.id not in imports.lines and \
                        not node.keywords:  # (np.round's stand-in is imported as round)
                    node.func = helper(names["round"])
                elif isinstance(func, gast.Attribute) and func.attr == "tolist" and \
                        "tolist" in names and not node.args and not node.keywords:
                    return gast.copy_location(gast.Call(helper(names["tolist"]), [func.value],
                                                        []), node)
                return node
        PythonStandIns().visit(tree)


def _range_counters(tree) -> frozenset:
    """The names in ``tree`` bound only as the target of a loop over a ``range`` (or its
    ``reversed``): Python ints wherever they are read.

    >>> import gast
    >>> tree = gast.parse("for i in range(3):\\n    j = i\\nfor k in reversed(range(2)):\\n"
    ...                   "    k = k + 1")
    >>> sorted(_range_counters(tree))
    ['i']
    """
    counted, other, targets = set(), set(), set()
    for node in trees.walk(tree):
        if isinstance(node, gast.For) and isinstance(node.target, gast.Name):
            loop = node.iter
            if isinstance(loop, gast.Call) and isinstance(loop.func, gast.Name) and \
                    loop.func.id == "reversed" and len(loop.args) == 1:
                loop = loop.args[0]
            if isinstance(loop, gast.Call) and isinstance(loop.func, gast.Name) and \
                    loop.func.id == "range":
                counted.add(node.target.id)
                targets.add(id(node.target))
                continue
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load) and \
                id(node) not in targets:
            other.add(node.id)
    return frozenset(counted - other)


def _stand_in(found: tuple):
    """The function ``(module, name)`` names: a backend's stand-in (the backends, a floor
    below the runtime, name it by its module and name).

    >>> _stand_in(("s2sad.runtime.cupy_compat", "vecdot")).__module__
    's2sad.runtime.cupy_compat'
    """
    import importlib
    module, name = found
    return getattr(importlib.import_module(module), name)


def _numpy_function(value):
    """``(module, name)`` if ``value`` is a function of NumPy (``numpy.sin``,
    ``numpy.linalg.norm``), else None."""
    import numpy
    name = getattr(value, "__name__", None)
    if not isinstance(name, str) or isinstance(value, type) or not callable(value):
        return None
    for module in (numpy, numpy.linalg, numpy.fft):
        if getattr(module, name, None) is value:
            return module.__name__, name
    return None


def _twin_function(value, backend):
    """``(module, name)`` if ``value`` is a function of a library module ``backend`` has a
    twin of (``scipy.special.erf`` on CuPy: ``cupyx.scipy.special.erf``), else None."""
    import sys
    name = getattr(value, "__name__", None)
    if not isinstance(name, str) or isinstance(value, type) or not callable(value):
        return None
    for module in (*backend.twins, *sorted(backend.without)):
        if getattr(sys.modules.get(module), name, None) is value:
            return module, name
    return None


def _library_object(name: str, value, backend):
    """``(module, name)`` if ``value`` is an object of a library module ``backend`` has a
    twin of, or none (``scipy.stats.norm``, a distribution, imported as ``name``), else
    None."""
    import sys
    kind = type(value).__module__ or ""
    if isinstance(value, (type, types.ModuleType)):
        return None
    for module in (*backend.twins, *sorted(backend.without)):
        if not kind.startswith(module.split(".")[0] + "."):
            continue  # (another library's, or a builtin)
        library = sys.modules.get(module)
        for attribute in (name, type(value).__name__.removesuffix("_gen")):
            if library is not None and getattr(library, attribute, None) is value:
                return module, attribute
    return None


def _math_function(value):
    """``("math", name)`` if ``value`` is a function of the ``math`` module, else None."""
    import math
    name = getattr(value, "__name__", None)
    if isinstance(name, str) and getattr(math, name, None) is value and callable(value):
        return "math", name
    return None


def build_function(text: str, filename: str, name: str, namespace: dict, cells: dict):
    """Compile ``text`` and return its function ``name``.

    The function's globals are ``namespace``; names in ``cells`` (the user's
    closure cells) are bound to those very cells, never copied. Code for the CuPy
    target, where CuPy cannot be imported, gives a function that says how to install it.
    """
    tree = ast.parse(text, filename) if cells else text  # (text compiles faster than a tree)
    if cells:  # (the function is built from its tree below; the rest, imports, runs here)
        fdef = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name)
        tree.body.remove(fdef)
    try:
        exec(compile(tree, filename, "exec"), namespace)
    except ImportError:
        missing = missing_backend(text)
        if missing is None:
            raise
        return unavailable(name, missing[1], missing[0])  # the source stays printable
    if not cells:
        return namespace[name]
    return function_with_cells(fdef, filename, namespace, cells)


def function_with_cells(fdef: ast.FunctionDef, filename: str, namespace: dict,
                        cells: dict) -> types.FunctionType:
    """The function ``fdef`` defines, its globals ``namespace``, its free names among
    ``cells`` bound to those very cells (the user's closure cells, or cells made for it).

    It is compiled inside a function that takes the names of ``cells`` as parameters,
    and taken out of that one's constants: nothing is run, nothing is stored in
    ``namespace``.

    >>> import types
    >>> fdef = ast.parse("def scaled(x):\\n    return k * x").body[0]
    >>> cell = types.CellType(2.0)
    >>> scaled = function_with_cells(fdef, "<scaled>", {}, {"k": cell})
    >>> scaled(3.0), scaled.__closure__[0] is cell
    (6.0, True)
    """
    args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in cells], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    maker = ast.FunctionDef("__s2sad_cells__", args, [fdef], [], None, None)
    for node in [maker, *args.args]:  # (on the def line: fdef's lines keep their numbers)
        ast.copy_location(node, fdef)
    module = compile(ast.Module([maker], []), filename, "exec")
    outer = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in outer.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    return types.FunctionType(inner, namespace, fdef.name, None,
                              tuple(cells[n] for n in inner.co_freevars))
