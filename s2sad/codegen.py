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
import re

import gast

_MARK = "__s2sad_comment_"
_comments: dict[int, str] = {}
_ids = itertools.count()


def comment(text: str) -> gast.Expr:
    """A statement that ``unparse`` prints as ``# text``."""
    key = next(_ids)
    _comments[key] = text
    return gast.Expr(gast.Name(f"{_MARK}{key}", gast.Load(), None, None))


def comment_text(stmt) -> str | None:
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Name) and \
            stmt.value.id.startswith(_MARK):
        return _comments[int(stmt.value.id[len(_MARK):])]
    return None


def unparse(node) -> str:
    text = ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(node)))
    return re.sub(rf"^(\s*){_MARK}(\d+)$",
                  lambda m: f"{m.group(1)}# {_comments[int(m.group(2))]}", text, flags=re.M)


def register(filename: str, text: str) -> None:
    """Make ``text`` visible to tracebacks and ``inspect.getsource`` under ``filename``."""
    lines = text.splitlines(True)
    linecache.cache[filename] = (len(text), None, lines, filename)


class Imports:
    """The names generated code uses for modules and helpers, collision-free.

    Only what the final code mentions is imported in its header.
    """

    def __init__(self, namer, source):
        self.namer = namer
        self.source = source
        self.lines: dict[str, str] = {}   # alias -> import statement
        self.helpers: dict[str, str] = {}  # helper name -> alias
        self.modules: dict[str, str] = {}  # module name -> alias
        self.live: dict[str, object] = {}  # user globals read at each call

    def module(self, module) -> str:
        name = module.__name__
        if name not in self.modules:
            short = {"numpy": "np"}.get(name, name.split(".")[-1])
            try:
                same = self.source.resolve(short) is module
            except KeyError:
                same = False
            alias = short if same and short not in self.source.locals else self.namer.claim(short)
            self.modules[name] = alias
            self.lines[alias] = f"import {name}" if alias == name else f"import {name} as {alias}"
            self.source.extra[alias] = module
        return self.modules[name]

    def numpy(self) -> str:
        import numpy
        return self.module(numpy)

    def helper(self, name: str, module: str = "s2sad.runtime") -> str:
        """Alias of a helper function of ``module`` (``s2sad.runtime`` or a sibling of it)."""
        if name not in self.helpers:
            alias = self.namer.claim(name)
            self.helpers[name] = alias
            self.lines[alias] = (f"from {module} import {name}" if alias == name
                                 else f"from {module} import {name} as {alias}")
        return self.helpers[name]

    def is_helper(self, alias: str, name: str) -> bool:
        return self.helpers.get(name) == alias

    def reference(self, name: str, value) -> str:
        """Alias for a global a derivative rule mentions (numpy, math, a runtime helper)."""
        import types
        from . import runtime
        if isinstance(value, types.ModuleType):
            return self.module(value)
        if getattr(runtime, name, None) is value and value is not None:
            return self.helper(name)
        module = getattr(value, "__module__", "") or ""
        if module.startswith("s2sad.runtime") and getattr(value, "__name__", None) == name:
            return self.helper(name, module)  # helpers may live in s2sad.runtime_* modules
        raise TypeError(f"a derivative rule refers to {name!r}, which is neither a module nor "
                        "a helper of s2sad.runtime")

    def user_global(self, name: str, value, where: tuple) -> None:
        """A global read by the function: a module is imported, anything else is read live
        (``where`` is the namespace and key to read it from at each call)."""
        import sys
        import types
        if isinstance(value, types.ModuleType) and sys.modules.get(value.__name__) is value:
            self.modules.setdefault(value.__name__, name)
            self.lines[name] = (f"import {value.__name__}" if name == value.__name__
                                else f"import {value.__name__} as {name}")
        else:
            self.live[name] = where

    def header(self, tree) -> list[str]:
        used = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
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


def build_function(text: str, filename: str, name: str, namespace: dict, cells: dict):
    """Compile ``text`` and return its function ``name``.

    The function's globals are ``namespace``; names in ``cells`` (the user's
    closure cells) are bound to those very cells, never copied.
    """
    import types
    tree = ast.parse(text, filename)
    if cells:
        index = next(i for i, s in enumerate(tree.body) if isinstance(s, ast.FunctionDef))
        fdef = tree.body[index]
        args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in cells], vararg=None,
                             kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
        wrapper = ast.FunctionDef("__s2sad_cells__", args,
                                  [fdef, ast.Return(ast.Name(name, ast.Load()))], [], None, None)
        ast.copy_location(wrapper, fdef)
        tree.body[index] = wrapper
        ast.fix_missing_locations(tree)
    exec(compile(tree, filename, "exec"), namespace)
    if not cells:
        return namespace[name]
    factory = namespace.pop("__s2sad_cells__")
    inner = next(c for c in factory.__code__.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == name)
    return types.FunctionType(inner, namespace, name, None,
                              tuple(cells[n] for n in inner.co_freevars))
