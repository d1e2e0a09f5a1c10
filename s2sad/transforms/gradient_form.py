"""Give each gradient its argument's form directly where the argument's kind is known.

``as_gradient(x, g)`` works for any argument (it matches shapes, dtypes and
containers at run time); when the compiler knows ``x`` is a Python float, or a
list or tuple of Python floats, the conversion is written out instead:
``float(g)``, ``[float(g_0), float(g_1)]``.

>>> import gast
>>> from s2sad.codegen import unparse
>>> from s2sad.transforms.kinds import from_descriptor
>>> fn = gast.parse('''def g(p, x):
...     return (as_gradient(p, [s_a, s_b]), as_gradient(x, s_x))''').body[0]
>>> kinds = {"p": from_descriptor(("list", ("float", "float")), "p"),
...          "x": from_descriptor("float", "x")}
>>> print(unparse(GradientForm(kinds, "as_gradient").visit(fn)))
def g(p, x):
    return ([float(s_a), float(s_b)], float(s_x))
"""

from __future__ import annotations

import gast


def _py_float(kind) -> bool:
    return kind is not None and kind.tag == "scalar" and kind.py == "float"


class GradientForm(gast.NodeTransformer):
    def __init__(self, kinds: dict, as_gradient: str | None, float_name: str = "float"):
        # the builtins float, map, list and tuple must not be shadowed where this is used
        self.kinds = kinds
        self.as_gradient = as_gradient
        self.float_name = float_name

    def _float(self, value):
        return gast.Call(gast.Name(self.float_name, gast.Load(), None, None), [value], [])

    def visit_Call(self, node):
        self.generic_visit(node)
        if not (isinstance(node.func, gast.Name) and node.func.id == self.as_gradient and
                len(node.args) == 2 and isinstance(node.args[0], gast.Name)):
            return node
        kind = self.kinds.get(node.args[0].id)
        value = node.args[1]
        if _py_float(kind):
            return gast.copy_location(self._float(value), node)
        if kind is not None and kind.tag in ("list", "tuple") and kind.items and \
                all(_py_float(k) for k in kind.items) and \
                isinstance(value, (gast.List, gast.Tuple)) and \
                len(value.elts) == len(kind.items):
            parts = [self._float(e) if not (isinstance(e, gast.Constant)) else
                     gast.Constant(float(e.value), None) for e in value.elts]
            display = gast.List if kind.tag == "list" else gast.Tuple
            return gast.copy_location(display(parts, gast.Load()), node)
        if kind is not None and kind.tag in ("list", "tuple") and kind.items and \
                all(_py_float(k) for k in kind.items):  # list(map(float, s_x))
            floats = gast.Call(gast.Name("map", gast.Load(), None, None),
                               [gast.Name(self.float_name, gast.Load(), None, None), value], [])
            return gast.copy_location(gast.Call(gast.Name(kind.tag, gast.Load(), None, None),
                                                [floats], []), node)
        return node
