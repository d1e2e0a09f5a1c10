"""The checks ``grad(f, debug_nans=True)`` puts after every assignment of the generated code.

A check costs one ``isfinite`` over the value; values that cannot hold a NaN
(integers, booleans, ``None``, strings, ranges) pass untouched, containers
(lists, tuples, dicts) are checked item by item.

>>> check_finite(1.5, "t_1 = x * 2.0", "demo.py", 3)
>>> check_finite([1.0, float("inf")], "ys = [a, b]", None, None)
Traceback (most recent call last):
    ...
s2sad.runtime.debug.NonFiniteError: infinity made by the generated statement
    ys = [a, b]
"""

from __future__ import annotations

import linecache
import math
import sys

from ..backends import array_module
from ..errors import S2sadError


class NonFiniteError(S2sadError, FloatingPointError):
    """A generated statement made a NaN or an infinity (``grad(f, debug_nans=True)``).

    ``statement`` is the generated statement's text, ``filename`` and ``lineno``
    the user's line it comes from, ``what`` is ``"NaN"`` or ``"infinity"``.
    """

    def __init__(self, what: str, statement: str, filename: str | None, lineno: int | None,
                 argument: str | None = None, function: str | None = None,
                 generated: str | None = None):
        self.what = what
        self.statement = statement
        self.filename = filename
        self.lineno = lineno
        self.argument = argument
        if argument is not None:
            parts = [f"the argument {argument!r} already holds {_a(what)}"]
        else:
            parts = [f"{what} made by the generated statement", f"    {statement}"]
            if generated:
                parts.append(f"  (line {generated} of {function or 'the gradient'})")
        if filename is not None and lineno is not None:
            parts.append("from the line of your code")
            parts.append(f'  File "{filename}", line {lineno}')
            text = linecache.getline(filename, lineno).strip()
            if text:
                parts.append(f"    {text}")
        if argument is None and filename is not None:
            parts.append("Check the values that reach this line (a log or sqrt at 0, a division "
                         "by 0, an overflow); s2sad.stop_gradient or a small offset keeps the "
                         "derivative finite where the function itself is.")
        super().__init__("\n".join(parts))


def _a(what: str) -> str:
    return ("an " if what[0] in "aeiou" else "a ") + what


def _defect(value) -> str | None:
    """``"NaN"`` or ``"infinity"`` if ``value`` holds one, else None."""
    if isinstance(value, (bool, int, str, bytes, range)) or value is None:
        return None
    if isinstance(value, float):  # also NumPy's float64
        if math.isfinite(value):
            return None
        return "NaN" if math.isnan(value) else "infinity"
    if isinstance(value, (list, tuple)):
        return next((d for d in map(_defect, value) if d is not None), None)
    if isinstance(value, dict):
        return next((d for d in map(_defect, value.values()) if d is not None), None)
    if isinstance(value, complex):
        return _defect(value.real) or _defect(value.imag)
    dtype = getattr(value, "dtype", None)
    if dtype is None or getattr(dtype, "kind", "") not in "fc":
        return None
    xp = array_module(value)  # NumPy for NumPy arrays and scalars; CuPy on the GPU's data
    if bool(xp.isfinite(value).all()):
        return None
    return "NaN" if bool(xp.isnan(value).any()) else "infinity"


def check_finite(value, statement: str, filename: str | None, lineno: int | None) -> None:
    """Raise ``NonFiniteError`` if ``value``, just assigned by ``statement`` (generated from
    the user's ``filename:lineno``), holds a NaN or an infinity."""
    what = _defect(value)
    if what is None:
        return
    caller = sys._getframe(1)
    generated = caller.f_code.co_filename
    if not generated.startswith("<s2sad"):  # called by hand, not from generated code
        raise NonFiniteError(what, statement, filename, lineno)
    raise NonFiniteError(what, statement, filename, lineno, function=generated,
                         generated=caller.f_lineno - 1)


def check_argument(value, name: str, filename: str | None, lineno: int | None) -> None:
    """Raise ``NonFiniteError`` if the argument ``name`` holds a NaN or an infinity."""
    what = _defect(value)
    if what is not None:
        raise NonFiniteError(what, name, filename, lineno, argument=name)
