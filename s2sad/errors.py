"""The errors s2sad raises. Every one names the user's file and line when it has one."""

from __future__ import annotations


class S2sadError(Exception):
    """Base class of every error s2sad raises on purpose."""


def _located(message: str, filename: str | None, lineno: int | None, text: str | None,
             col: int | None, hint: str | None) -> str:
    parts = [message]
    if filename is not None and lineno is not None:
        parts.append(f'  File "{filename}", line {lineno}')
        if text:
            stripped = text.rstrip("\n")
            indent = len(stripped) - len(stripped.lstrip())
            parts.append("    " + stripped.strip())
            if col is not None and col >= indent:
                parts.append("    " + " " * (col - indent) + "^")
    if hint:
        parts.append(hint)
    return "\n".join(parts)


class UnsupportedSyntaxError(SyntaxError, S2sadError):
    """A construct s2sad cannot differentiate (yet), located in the user's source.

    It is a ``SyntaxError``, so ``filename``, ``lineno``, ``offset`` and ``text``
    carry the location, and ``str(err)`` spells it out with a caret and a hint.
    """

    def __init__(self, construct: str, filename: str | None = None, lineno: int | None = None,
                 text: str | None = None, col: int | None = None, hint: str | None = None):
        self.construct = construct
        self.hint = hint
        message = f"s2sad does not support {construct}"
        super().__init__(message, (filename, lineno, None if col is None else col + 1, text))
        self._full = _located(message, filename, lineno, text, col, hint)

    def __str__(self) -> str:
        return self._full


class DifferentiationError(S2sadError):
    """Code that parses fine but cannot be differentiated: a call without a rule,
    an undefined name, a non-scalar output, a bad ``wrt``..."""

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None,
                 text: str | None = None, col: int | None = None, hint: str | None = None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.text = text
        self.hint = hint
        super().__init__(_located(message, filename, lineno, text, col, hint))


class NoSourceError(DifferentiationError):
    """The function has no source file s2sad can read (typed at a REPL, made by ``exec``...)."""


class NoDerivativeError(DifferentiationError):
    """A call on an active value to a function that has no derivative rule."""


class NonScalarOutputError(DifferentiationError, ValueError):
    """``grad`` of a function whose result is not a scalar."""
