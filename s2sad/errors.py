"""The errors s2sad raises. Every one names the user's file and line when it has one."""

from __future__ import annotations


class S2sadError(Exception):
    """Base class of every error s2sad raises on purpose."""


def _located(message: str, filename: str | None, lineno: int | None, text: str | None,
             col: int | None, hint: str | None, calls: tuple = ()) -> str:
    """``message`` at its place in the user's source, then ``hint``. ``calls``: for code
    inlined from the user's other functions, each line from the differentiated function's
    down to the one at fault, ``(file, line, text, column, function)``, shown as a
    traceback shows calls.

    >>> print(_located("no derivative rule for f", "m.py", 7, "    y = f(x)\\n", 8, "Do X.",
    ...                (("m.py", 2, "    return helper(x)\\n", 4, "loss"),
    ...                 ("m.py", 7, "    y = f(x)\\n", 4, "helper"))))
    no derivative rule for f
      File "m.py", line 2, in loss
        return helper(x)
      File "m.py", line 7, in helper
        y = f(x)
        ^
    Do X.
    """
    parts = [message]
    frames = calls or ((filename, lineno, text, col, None),)
    for i, (where, line, source, column, function) in enumerate(frames):
        if where is None or line is None:
            continue
        parts.append(f'  File "{where}", line {line}' + (f", in {function}" if calls else ""))
        if source:
            stripped = source.rstrip("\n")
            indent = len(stripped) - len(stripped.lstrip())
            parts.append("    " + stripped.strip())
            if column is not None and column >= indent and i == len(frames) - 1:
                parts.append("    " + " " * (column - indent) + "^")
    if hint:
        parts.append(hint)
    return "\n".join(parts)


class UnsupportedSyntaxError(SyntaxError, S2sadError):
    """A construct s2sad cannot differentiate (yet), located in the user's source.

    It is a ``SyntaxError``, so ``filename``, ``lineno``, ``offset`` and ``text``
    carry the location, and ``str(err)`` spells it out with a caret and a hint. A
    traceback prints a ``SyntaxError`` as its location, then its ``msg``: the ``msg``
    holds the hint too, and the lines that called the code it is in.

    >>> err = UnsupportedSyntaxError("a `del` statement", "m.py", 3, "    del y\\n", 4,
    ...                              "Remove the `del`.")
    >>> print(err.msg)
    s2sad does not support a `del` statement
    Remove the `del`.
    """

    def __init__(self, construct: str, filename: str | None = None, lineno: int | None = None,
                 text: str | None = None, col: int | None = None, hint: str | None = None,
                 calls: tuple = ()):
        self.construct = construct
        self.hint = hint
        self.calls = calls
        self.col = col
        message = f"s2sad does not support {construct}"
        shown = [message] + [  # (the line at fault is the traceback's: the calls to it)
            f'  called from "{where}", line {line}, in {function}' +
            (f":\n    {source.strip()}" if source else "")
            for where, line, source, _, function in reversed(calls[:-1])] + \
            ([hint] if hint else [])
        super().__init__("\n".join(shown),
                         (filename, lineno, None if col is None else col + 1, text))
        self._full = _located(message, filename, lineno, text, col, hint, calls)

    def with_calls(self, calls: tuple) -> "UnsupportedSyntaxError":
        """The same error, with the user's lines that called the code it is in."""
        return type(self)(self.construct, self.filename, self.lineno, self.text, self.col,
                          self.hint, calls)

    def __str__(self) -> str:
        return self._full


class DifferentiationError(S2sadError):
    """Code that parses fine but cannot be differentiated: a call without a rule,
    an undefined name, a non-scalar output, a bad ``wrt``..."""

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None,
                 text: str | None = None, col: int | None = None, hint: str | None = None,
                 calls: tuple = ()):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.text = text
        self.hint = hint
        self.col = col
        self.calls = calls  # (inlined code: the user's lines down to this one, _located)
        super().__init__(_located(message, filename, lineno, text, col, hint, calls))

    def with_calls(self, calls: tuple) -> "DifferentiationError":
        """The same error, with the user's lines that called the code it is in."""
        return type(self)(self.message, self.filename, self.lineno, self.text, self.col,
                          self.hint, calls)


class NoSourceError(DifferentiationError):
    """The function has no source file s2sad can read (typed at a REPL, made by ``exec``...)."""


class NoDerivativeError(DifferentiationError):
    """A call on an active value to a function that has no derivative rule."""


class NonScalarOutputError(DifferentiationError, ValueError):
    """``grad`` of a function whose result is not a scalar."""
