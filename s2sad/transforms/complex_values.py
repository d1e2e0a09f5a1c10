"""Does a program hold complex numbers? Its derivative then takes the complex rules.

>>> import gast
>>> tree = gast.parse("def f(x):\\n    return np.real(np.exp(1j * x))").body[0]
>>> holds_complex(tree, ["float"], {}, {})
True
>>> holds_complex(gast.parse("def f(x):\\n    return x * 2.0").body[0], ["float"], {}, {})
False

A program holds complex numbers where an argument does (an array of dtype kind ``c``, a
Python ``complex``), where its source writes one (``1j``), names a complex dtype or a
function that makes complex values from real ones (``np.fft.fft``, ``np.angle``), or reads
a global or closure value that is complex. Its rules are then those of ``defcomplex``
(``abs``: ``g * np.conj(x) / ans``), which are right for real values too, and each real
argument's gradient is the real part of its sensitivity (autograd's convention: the
gradient of a real ``f(x + iy)`` is ``df/dx - i df/dy``). Real programs keep their rules.
"""

from __future__ import annotations

import gast
import numpy as np

from .. import trees
from ..backends import ARRAY_TAGS

# names of complex dtypes, and of functions that make complex values from real ones (or
# whose derivative needs the complex rules: np.imag of a real array is 0)
COMPLEX_NAMES = frozenset({
    "complex", "complex64", "complex128", "complex256", "clongdouble", "cdouble", "csingle",
    "cfloat", "complexfloating", "imag", "angle", "real_if_close", "iscomplexobj", "fft",
    "emath", "scimath", "eig", "eigvals", "roots", "ifft", "rfft", "irfft", "hfft", "ihfft",
    "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"})
_COMPLEX_STRINGS = ("complex", "c8", "c16", "c32", "<c8", "<c16")


def _complex_value(value) -> bool:
    if isinstance(value, (complex, np.complexfloating)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind == "c"


def _complex_leaf(desc) -> bool:
    """Does an argument's descriptor hold a complex number (see ``descriptors``)? An
    object's description holds its members' (``p.W`` complex)."""
    if desc == "complex":
        return True
    if not isinstance(desc, tuple) or not desc:
        return False
    if desc[0] in ARRAY_TAGS:
        return len(desc) > 2 and desc[2] == "c"
    return any(_complex_leaf(item) or isinstance(item, tuple) and
               any(_complex_leaf(i) for i in item) for item in desc[1:])


def holds_complex(tree, descriptors, global_values: dict, closure: dict) -> bool:
    """Does the function ``tree`` (its arguments described by ``descriptors``, None: any;
    reading ``global_values`` and the cells of ``closure``) hold complex numbers?"""
    if any(_complex_leaf(d) for d in descriptors or ()):
        return True
    for node in trees.walk(tree):
        if isinstance(node, gast.Constant):
            if type(node.value) is complex:
                return True
            if isinstance(node.value, str) and node.value.startswith(_COMPLEX_STRINGS):
                return True
        elif isinstance(node, gast.Attribute) and node.attr in COMPLEX_NAMES:
            return True
        elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            if node.id in COMPLEX_NAMES:
                return True
            if node.id in closure:
                try:
                    if _complex_value(closure[node.id].cell_contents):
                        return True
                except ValueError:  # (a cell not yet filled)
                    pass
            elif _complex_value(global_values.get(node.id)):
                return True
    return False


def rebound_sums(function, cast_like=None):
    """``s_x += e`` as ``s_x = s_x + e`` in ``function`` (changed in place): a real
    array's sensitivity, added in place, cannot take a complex part (its real part is the
    gradient, taken at the end); into an item, ``s_x[i] += cast_like(e, s_x)`` (the
    name ``cast_like`` gives: the real part where ``s_x`` is real). Returns whether
    anything changed.

    >>> from s2sad.codegen import unparse
    >>> tree = gast.parse("def g(s_x, e):\\n    s_x += e\\n    s_x[0] += e").body[0]
    >>> rebound_sums(tree, lambda: "cast_like"), print(unparse(tree))
    def g(s_x, e):
        s_x = s_x + e
        s_x[0] += cast_like(e, s_x)
    (True, None)
    """
    changed = False
    for node in trees.walk(function):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block):
                if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
                        and isinstance(stmt.op, gast.Add):
                    load = gast.Name(stmt.target.id, gast.Load(), None, None)
                    block[i] = gast.copy_location(gast.Assign(
                        [stmt.target], gast.BinOp(load, gast.Add(), stmt.value), None), stmt)
                    changed = True
                elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add) and \
                        isinstance(stmt.target, gast.Subscript) and \
                        isinstance(stmt.target.value, gast.Name):
                    whole = gast.Name(stmt.target.value.id, gast.Load(), None, None)
                    stmt.value = gast.Call(gast.Name(cast_like(), gast.Load(), None, None),
                                           [stmt.value, whole], [])
                    changed = True
    return changed
