"""Which line of the user's function a failing line of generated code comes from.

Generated statements keep the line number of the user's statement they were made from
(the forward computation and its reverse sweep alike). The build keeps those numbers,
one per statement in the order the statements are written (:func:`statement_lines`);
when the generated code raises (a shape mismatch, a division by zero in the user's own
arithmetic), the traceback's generated line is found among the statements again and the
exception gets a note naming the user's file, line and text:

>>> import gast
>>> tree = gast.parse("def g(x):\\n    y = x * 2\\n    if y:\\n        y = 1 / x\\n"
...                   "    return y").body[0]
>>> for stmt, line in zip(tree.body, (10, 11, 13)):
...     stmt.lineno = line
>>> tree.body[1].body[0].lineno = 12
>>> statement_lines(tree)
(10, 11, 12, 13)
>>> text = "def g(x):\\n    y = x * 2\\n    if y:\\n        y = 1 / x\\n    return y\\n"
>>> user_line(text, "g", (10, 11, 12, 13), 4)
12
"""

from __future__ import annotations

import ast
import linecache

import gast

from .trees import COMMENT_MARK as _MARK
from .trees import walk as _walk


def _statements(body, comment=lambda stmt: False):
    """The statements of ``body`` and of the blocks inside them, in the order written."""
    for stmt in body:
        if comment(stmt):
            continue
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _statements(inner, comment)
        for handler in getattr(stmt, "handlers", None) or ():
            yield from _statements(handler.body, comment)


def _is_comment(stmt) -> bool:
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Name) and \
        stmt.value.id.startswith(_MARK)


def statement_lines(function: gast.FunctionDef) -> tuple:
    """The user's line of each statement of the generated ``function`` (None where it has
    none), in the order they are written (comments left out: they are no statements once
    printed); for a statement inlined from another function of the user's, the lines
    that lead to it (``origin``: ``(file, line, text, column, function)`` each, the
    differentiated function's first)."""
    return tuple(getattr(stmt, "origin", None) or getattr(stmt, "lineno", None)
                 for stmt in _statements(function.body, _is_comment))


_BLOCKS = ("body", "orelse", "finalbody", "handlers")


def moved_lines(function: gast.FunctionDef, unparse=gast.unparse) -> tuple:
    """For each statement of the generated ``function`` (as :func:`statement_lines`), the
    values a pass moved into it from a statement of another user's line (``moved_from``:
    forward substitution), as ``(text, line)``: the line is the one an error in that value
    comes from. ``()`` where none moved. ``unparse``: the text a node is written as (the
    generated code's own, :func:`s2sad.codegen.unparse`).

    >>> tree = gast.parse("def g(x):\\n    y = np.sum(x[:3] + x[:2])").body[0]
    >>> tree.body[0].value.args[0].moved_from = 4
    >>> moved_lines(tree)
    ((('x[:3] + x[:2]', 4),),)
    """
    if not any("moved_from" in node.__dict__ for node in _walk(function)):
        return ((),) * sum(1 for _ in _statements(function.body, _is_comment))  # (most:
    out = []  # one walk, not one of each statement's fields, contexts and all)
    for stmt in _statements(function.body, _is_comment):
        found, todo = [], [value for field, value in gast.iter_fields(stmt)
                           if field not in _BLOCKS]
        while todo:
            node = todo.pop()
            if isinstance(node, list):
                todo.extend(node)
            elif isinstance(node, gast.AST):
                if "moved_from" in node.__dict__:
                    found.append((unparse(node).strip(), node.moved_from))
                todo.extend(value for _, value in gast.iter_fields(node))
        out.append(tuple(found))
    return tuple(out)


def _statement_index(text: str, name: str, generated: int) -> int | None:
    """The index (in :func:`_statements`'s order) of the statement at line ``generated``
    of ``text``, the generated module whose function is ``name``; the innermost."""
    try:
        module = ast.parse(text)
    except SyntaxError:
        return None
    function = next((s for s in module.body if isinstance(s, ast.FunctionDef) and
                     s.name == name), None)
    if function is None:
        return None
    found = None
    for index, stmt in enumerate(_statements(function.body)):
        if stmt.lineno <= generated <= (stmt.end_lineno or stmt.lineno):
            found = index  # (the innermost: statements inside come after their block's)
    return found


def _failing_text(exc: BaseException, filename: str) -> str | None:
    """The text of the expression of the generated file ``filename`` that raised ``exc``
    (Python 3.11+ knows each instruction's columns), where it is on one line."""
    tb, last = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            last = tb
        tb = tb.tb_next
    positions = getattr(last.tb_frame.f_code, "co_positions", None) if last else None
    if positions is None or last.tb_lasti < 0:
        return None
    try:
        line, end, col, end_col = list(positions())[last.tb_lasti // 2]
    except (IndexError, ValueError):
        return None
    if line is None or line != end or col is None or end_col is None:
        return None
    return linecache.getline(filename, line)[col:end_col].strip() or None


def _moved_line(exc: BaseException, compiled, generated: int):
    """The user's line of the value moved into the failing statement (:func:`moved_lines`)
    whose text holds the expression that raised, the smallest; None where there is none."""
    moved = getattr(compiled, "moved", ())
    if not moved:
        return None
    index = _statement_index(compiled.text, compiled.name, generated)
    failing = _failing_text(exc, compiled.filename)
    if index is None or index >= len(moved) or failing is None:
        return None
    holding = [(len(text), line) for text, line in moved[index] if failing in text]
    return min(holding, key=lambda pair: pair[0])[1] if holding else None


def user_line(text: str, name: str, lines: tuple, generated: int,
              following: bool = False) -> int | None:
    """The user's line of the statement at line ``generated`` of ``text`` (the generated
    module; ``name`` its function; ``lines`` from :func:`statement_lines`). ``following``:
    for a statement of none (a sensitivity's zeros, made before the adjoint that first
    adds to it), the line of the next statement that has one."""
    found = _statement_index(text, name, generated)
    if found is None or found >= len(lines):
        return None
    if following:
        return next((line for line in lines[found:] if line is not None), None)
    return lines[found]


def _generated_line(exc: BaseException, compiled) -> int | None:
    """The line of the generated code of ``compiled`` that raised ``exc`` (the last)."""
    tb, generated = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == compiled.filename:
            generated = tb.tb_lineno
        tb = tb.tb_next
    return generated


def user_line_of(exc: BaseException, compiled, following: bool = False):
    """The user's line (or, inlined, the lines that lead to it) of the generated statement
    of ``compiled`` that raised ``exc``; None where it is not known. ``following``: as
    :func:`user_line` reads it."""
    generated = _generated_line(exc, compiled)
    if generated is None or not compiled.user_lines:
        return None
    return user_line(compiled.text, compiled.name, compiled.user_lines, generated, following)


def note_user_line(exc: BaseException, compiled, who: str) -> None:
    """Add to ``exc`` (raised in the generated code of ``compiled``) a note naming the
    user's line its failing statement comes from. Python 3.11+ prints notes."""
    generated = _generated_line(exc, compiled)
    if generated is None or not compiled.user_lines or compiled.output_at is None:
        return
    kernel = getattr(compiled, "kernel", None)
    if kernel is not None:  # (numba's: its module's statements are not the generated ones)
        note = _kernel_note(kernel, generated, compiled.output_at[0], who)
        if note is not None:
            add_note(exc, note)
        return
    line = _moved_line(exc, compiled, generated) or \
        user_line(compiled.text, compiled.name, compiled.user_lines, generated)
    if line is None:
        return
    if isinstance(line, tuple):  # inlined: the line it comes from, then the calls to it
        *calls, (filename, line, text, _, function) = line
        note = f"s2sad: in {who}, line {generated} of the generated code comes from " \
               f"{filename}, line {line}, in {function}" + \
               (f":\n    {text.strip()}" if text else "") + "".join(
                   f"\n  called from {where}, line {at}, in {caller}" +
                   (f":\n    {said.strip()}" if said else "")
                   for where, at, said, _, caller in reversed(calls))
    else:
        filename = compiled.output_at[0]
        text = linecache.getline(filename, line).strip()
        note = f"s2sad: in {who}, line {generated} of the generated code comes from " \
               f"{filename}, line {line}" + (f":\n    {text}" if text else "")
    add_note(exc, note)


def notes(exc: BaseException) -> list:
    """The notes s2sad added to ``exc`` (:func:`add_note`), on any Python.

    >>> error = ValueError("shapes differ")
    >>> add_note(error, "s2sad: in grad_f, line 3 comes from m.py, line 5")
    >>> notes(error)
    ['s2sad: in grad_f, line 3 comes from m.py, line 5']
    """
    return [*getattr(exc, "__notes__", ()), *exc.__dict__.get("_s2sad_notes", ())]


def add_note(exc: BaseException, note: str) -> None:
    """Add ``note`` to ``exc`` (once). Python 3.11+ prints notes after the message. Python
    3.10 prints none: there the message itself gains the note, as 3.11 prints it, where
    the message is the exception's only argument (a ``KeyError``'s is its key: the note is
    kept in ``__notes__``, which the ``exceptiongroup`` backport prints, as pytest's).

    >>> error = ZeroDivisionError("float division by zero")
    >>> add_note(error, "s2sad: comes from m.py, line 5")
    >>> import traceback
    >>> print("".join(traceback.format_exception_only(type(error), error)), end="")
    ZeroDivisionError: float division by zero
    s2sad: comes from m.py, line 5
    """
    if note in notes(exc):
        return
    if hasattr(exc, "add_note"):
        exc.add_note(note)
        return
    args = exc.args
    if len(args) <= 1 and str(exc) == (args[0] if args else "") and \
            all(isinstance(a, str) for a in args):
        exc.args = ((args[0] + "\n" if args else "") + note,)
        if str(exc) == exc.args[0]:  # (a message of its class's own making: not there)
            exc.__dict__.setdefault("_s2sad_notes", []).append(note)
            return
        exc.args = args
    exc.__notes__ = [*getattr(exc, "__notes__", ()), note]


def _kernel_note(kernel, generated: int, filename: str, who: str) -> str | None:
    """The note for an error raised by the numba kernel ``kernel`` (its module's line
    ``generated``): the user's line of the kernel statement at that line, where numba's
    traceback has one; else the lines the whole kernel computes (numba names none).

    >>> from types import SimpleNamespace
    >>> kernel = SimpleNamespace(name="kernel_f", lines=[(8, 8, 3), (9, 9, None), (10, 11, 5)])
    >>> print(_kernel_note(kernel, 20, "m.py", "grad_f"))
    s2sad: in grad_f, the error comes from its numba kernel kernel_f, which computes lines 3 to 5 of m.py; the same call with target='numpy' names the line
    >>> print(_kernel_note(kernel, 10, "m.py", "grad_f"))
    s2sad: in grad_f, line 10 of the numba kernel kernel_f comes from m.py, line 5
    """
    def first(line):  # (inlined code: the differentiated function's own line)
        return line[0][1] if isinstance(line, tuple) else line
    inner = [first(u) for start, end, u in kernel.lines if start <= generated <= end and u]
    if inner:
        text = linecache.getline(filename, inner[-1]).strip()
        return f"s2sad: in {who}, line {generated} of the numba kernel {kernel.name} comes " \
               f"from {filename}, line {inner[-1]}" + (f":\n    {text}" if text else "")
    lines = [first(u) for _, _, u in kernel.lines if u]
    if not lines:
        return None
    return f"s2sad: in {who}, the error comes from its numba kernel {kernel.name}, which " \
           f"computes lines {min(lines)} to {max(lines)} of {filename}; the same call with " \
           "target='numpy' names the line"
