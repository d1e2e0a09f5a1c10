"""Rewrite sugar into the small set of primitives the reverse pass knows.

``+x`` becomes ``x``, annotated assignments plain ones, and array methods and
``.T`` become calls of the matching NumPy function, so one rule serves both.

>>> import gast
>>> tree = gast.parse("def f(x):\\n    x += 1\\n    y = x.sum(axis=0) + x.T\\n    return +y").body[0]
>>> print(gast.unparse(Desugar("np", {"x", "y"}).visit(tree)))  # doctest: +NORMALIZE_WHITESPACE
def f(x):
    x += 1
    y = np.sum(x, axis=0) + np.transpose(x)
    return y
"""

from __future__ import annotations

import gast

# array method -> NumPy function taking the array as its first argument
METHODS = {
    "sum": "sum", "mean": "mean", "prod": "prod", "max": "max", "min": "min",
    "dot": "dot", "transpose": "transpose", "std": "std", "var": "var",
    "cumsum": "cumsum", "clip": "clip", "ravel": "ravel", "squeeze": "squeeze",
    "reshape": "reshape", "conj": "conj", "argmax": "argmax", "argmin": "argmin",
}
# methods whose extra positional arguments are a shape/axes tuple: x.reshape(2, 3)
_VARARGS = {"reshape", "transpose"}
ATTRIBUTES = {"T": "transpose"}


class Desugar(gast.NodeTransformer):
    def __init__(self, numpy_name: str, local_names: set[str]):
        self.numpy_name = numpy_name
        self.local_names = local_names

    def _np(self, name: str, node) -> gast.Attribute:
        ref = gast.Attribute(gast.Name(self.numpy_name, gast.Load(), None, None), name, gast.Load())
        return gast.copy_location(ref, node)

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        return gast.copy_location(gast.Assign([node.target], node.value, None), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.UAdd):
            return node.operand
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Attribute) and func.attr in METHODS and \
                self._is_value(func.value):
            args = list(node.args)
            if func.attr in _VARARGS and len(args) > 1:
                args = [gast.copy_location(gast.Tuple(args, gast.Load()), args[0])]
            return gast.copy_location(
                gast.Call(self._np(METHODS[func.attr], func), [func.value] + args, node.keywords),
                node)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in ATTRIBUTES and isinstance(node.ctx, gast.Load) and \
                self._is_value(node.value):
            return gast.copy_location(gast.Call(self._np(ATTRIBUTES[node.attr], node),
                                                [node.value], []), node)
        return node

    def _is_value(self, node) -> bool:
        """``x`` in ``x.sum()`` is a value; ``np`` in ``np.sum(x)`` is a module (left alone)."""
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        return not isinstance(root, gast.Name) or root.id in self.local_names
