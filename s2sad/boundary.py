"""Tracebacks without s2sad's own frames, as JAX filters its own.

An error at the user's call of a gradient comes through a dozen frames of the compiler
before it reaches the user's line. Each entry point of s2sad (``grad``, a gradient's
call, ``source_for``...) is wrapped in :func:`boundary`: on an error it drops the frames
of s2sad's package from the traceback and raises the error again from there. What stays
is the user's call, the user's own code that s2sad ran, and the generated code (an
``<s2sad grad_f of ...>`` file, whose failing line a note maps to the user's):

>>> import numpy as np, s2sad
>>> def f(x):
...     return np.sum(x * np.ones(2) @ np.ones(3))
>>> try:
...     s2sad.grad(f)(1.0)
... except ValueError as exc:
...     files = [frame.filename for frame in traceback.extract_tb(exc.__traceback__)]
>>> [name.split()[:2] for name in files if not name.startswith("<doctest")][-1:]
[['<s2sad', 'grad_f']]

(The frames before it are the user's; Python 3.10 also keeps the one frame of s2sad's
that caught the error.)

``S2SAD_TRACEBACK=full`` in the environment keeps every frame, to debug s2sad itself.
An error that s2sad's own code raised by mistake (a bare ``KeyError`` from inside the
compiler, not a ``raise`` of its own) keeps the frame that raised it, with a note that
says how to see the rest.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import traceback  # noqa: F401  (the example above reads frames with it)
import types
from pathlib import Path

from .errors import S2sadError
from .located import add_note, notes  # noqa: F401  (notes: what s2sad added, any Python)

PACKAGE = str(Path(__file__).resolve().parent) + os.sep
ENTRY_FILES = "<s2sad entry of "   # the guards dispatch.py generates: no user code in them
VARIABLE = "S2SAD_TRACEBACK"
NOTE = f"s2sad: its own frames are hidden from this traceback; {VARIABLE}=full shows them"


def full() -> bool:
    """Does the environment ask for every frame (``S2SAD_TRACEBACK=full``)?"""
    return os.environ.get(VARIABLE, "").strip().lower() == "full"


def _internal(frame: types.FrameType) -> bool:
    filename = frame.f_code.co_filename
    return filename.startswith(PACKAGE) or filename.startswith(ENTRY_FILES)


def _raised_on_purpose(tb: types.TracebackType) -> bool:
    """Was the exception raised by a ``raise`` statement at ``tb`` (the innermost frame)?"""
    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno).strip()
    return line.startswith("raise ") or line == "raise"


def filtered(exc: BaseException) -> types.TracebackType | None:
    """``exc``'s traceback without the frames of s2sad's package (see the module's text)."""
    entries = []
    tb = exc.__traceback__
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    if not entries:
        return None
    last = entries[-1]
    keep_last = _internal(last.tb_frame) and not isinstance(exc, S2sadError) and \
        not _raised_on_purpose(last)
    kept = [tb for tb in entries if not _internal(tb.tb_frame) or (keep_last and tb is last)]
    if len(kept) == len(entries):
        return exc.__traceback__
    if keep_last:
        add_note(exc, NOTE)
    result = None
    for tb in reversed(kept):
        result = types.TracebackType(result, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    return result


def hide(exc: BaseException) -> None:
    """Drop s2sad's frames from ``exc``'s traceback (unless ``S2SAD_TRACEBACK=full``); the
    caller then raises it again with a bare ``raise``, which adds no frame of its own::

        try:
            ...
        except Exception as exc:
            hide(exc)
            raise
    """
    if full():
        return
    if sys.version_info >= (3, 11):
        exc.with_traceback(filtered(exc))
        return
    # Python 3.10 raises again the traceback it caught, whose first entry is the frame
    # that caught it: that one stays, the rest is filtered behind it
    head = exc.__traceback__
    if head is not None:
        head.tb_next = filtered(exc)


def boundary(function):
    """``function``, an entry point of s2sad, whose errors leave without s2sad's frames
    (the wrapper's own frame among them)."""
    @functools.wraps(function)
    def entry(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            hide(exc)
            raise
    return entry
