"""On Dask, a run of elementwise statements made one kernel, applied chunk by chunk.

Each Dask operation is a task layer: building it costs milliseconds, and the scheduler
fuses the layers again before it computes. The adjoint of logistic regression's loss
writes seventeen elementwise operations between its two products with ``X``; Dask
builds seventeen layers, where the hand-written gradient builds five. Here consecutive
statements of the function's top level that only do elementwise arithmetic (``+ - * /
**``, unary minus, the array module's elementwise functions: ``da.exp(z)``) and leave one
value to the code after them become a nested function, the kernel, called by
``fused(kernel, inputs...)`` (:func:`s2sad.runtime.dask_compat.fused`): one Dask layer
that runs the kernel on each chunk. The kernel is the statements themselves, unchanged:
on a chunk (a NumPy array) ``da.exp`` is NumPy's ``exp``, so each chunk gets the same
operations, in the same order, as the statements one by one. Without a Dask array among
the inputs, ``fused`` calls the kernel itself.

>>> import gast
>>> from s2sad.codegen import unparse
>>> fn = gast.parse('''def grad_f(w, X, y):
...     z = X @ w
...     t_2 = da.exp(-z)
...     p = 1.0 / (1.0 + t_2)
...     s_z = (p - y) * 2.0
...     s_w = X.T @ s_z
...     return s_w''').body[0]
>>> print(unparse(ElementwiseKernels({"da"}, lambda: "fused", lambda: "kernel_1").visit(fn)))
def grad_f(w, X, y):
    z = X @ w
<BLANKLINE>
    def kernel_1(z, y):
        t_2 = da.exp(-z)
        p = 1.0 / (1.0 + t_2)
        s_z = (p - y) * 2.0
        return s_z
    s_z = fused(kernel_1, z, y)
    s_w = X.T @ s_z
    return s_w
"""

from __future__ import annotations

from typing import Callable

import gast
import numpy as np

from .. import trees
from ..trees import located

_BINARY = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)
_UNARY = (gast.USub, gast.UAdd)
# the array module's elementwise functions of one argument a kernel may call (a ufunc of
# Dask's is NumPy's on a NumPy chunk)
def _one_input_ufunc(name: str) -> bool:
    """Is ``np.<name>`` a ufunc of one input and one output? Applied chunk by chunk, such
    a function gives what it gives on the whole array (NumPy's own fact, read from the
    ufunc: no table of names here)."""
    func = getattr(np, name, None)
    return isinstance(func, np.ufunc) and func.nin == 1 and func.nout == 1


class ElementwiseKernels:
    """``modules``: the names of the array module in the code (NumPy's, as the user spells
    it, before it is printed as the target's ``da``); ``fused()`` and ``kernel()``: the
    name of the ``fused`` helper, and a fresh name for a kernel, each asked for when a run
    is made one. ``changed``: whether a run was."""

    def __init__(self, modules: set, fused: Callable[[], str], kernel: Callable[[], str]):
        self.modules = modules
        self.fused = fused
        self.kernel = kernel
        self.changed = False

    def visit(self, function: gast.FunctionDef) -> gast.FunctionDef:
        body, out, i = function.body, [], 0
        while i < len(body):
            j = i
            while j < len(body) and self._elementwise(body[j]):
                j += 1
            if j == i:
                out.append(body[i])
                i += 1
                continue
            out.extend(self._split(body[i:j], body[j:]))
            i = j
        function.body = out
        return function

    # --- which statements ---------------------------------------------------------------

    def _elementwise(self, stmt) -> bool:
        return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], gast.Name) and self._expression(stmt.value)

    def _expression(self, node) -> bool:
        if isinstance(node, gast.Name):
            return True
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float)
        if isinstance(node, gast.BinOp):
            return isinstance(node.op, _BINARY) and self._expression(node.left) and \
                self._expression(node.right)
        if isinstance(node, gast.UnaryOp):
            return isinstance(node.op, _UNARY) and self._expression(node.operand)
        return self._ufunc(node) and self._expression(node.args[0])

    def _ufunc(self, node) -> bool:
        return isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords and \
            isinstance(node.func, gast.Attribute) and _one_input_ufunc(node.func.attr) and \
            isinstance(node.func.value, gast.Name) and node.func.value.id in self.modules

    def _reads(self, node) -> list[str]:
        """The names ``node`` reads, in order (the array module's aside)."""
        if isinstance(node, gast.Name):
            return [node.id]
        if isinstance(node, gast.Call):
            return self._reads(node.args[0])
        return [name for child in gast.iter_child_nodes(node) for name in self._reads(child)]

    # --- a run made one kernel -------------------------------------------------------------

    def _split(self, run: list, after: list) -> list:
        """``run`` with its longest tail that can be one kernel made one, and so on for
        what is before it (a value that the code after reads, ``ret`` of
        ``value_and_grad``, ends the kernel before it)."""
        for start in range(len(run) - 1):
            fused = self._fused(run[start:], after)
            if fused is not None:
                return self._split(run[:start], fused + after) + fused
        if len(run) < 3:
            return run
        return self._split(run[:-1], run[-1:] + after) + run[-1:]

    def _fused(self, run: list, after: list) -> list | None:
        """The kernel's definition and its call, for ``run`` (statements followed by
        ``after``), or None where it is not made one: it leaves the code after it other
        than one value, a statement of it gives nothing to that value, or it does fewer
        than two operations (one layer either way)."""
        read_after = {n.id for stmt in after for n in trees.walk(stmt)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        given = {stmt.targets[0].id for stmt in run}
        left = given & read_after
        if len(left) != 1:
            return None
        (value,) = left
        needed = {value}
        for stmt in reversed(run):  # (every statement gives to the value: none is left out)
            target = stmt.targets[0].id
            if target not in needed:
                return None
            needed.discard(target)
            needed.update(self._reads(stmt.value))
        operations = sum(isinstance(n, (gast.BinOp, gast.UnaryOp, gast.Call))
                         for stmt in run for n in trees.walk(stmt.value))
        if operations < 2:
            return None
        inputs, defined = [], set()
        for stmt in run:
            for name in self._reads(stmt.value):
                if name not in defined and name not in inputs:
                    inputs.append(name)
            defined.add(stmt.targets[0].id)
        kernel = self.kernel()
        arguments = gast.arguments([gast.Name(n, gast.Param(), None, None) for n in inputs],
                                   [], None, [], [], None, [])
        returned = located(gast.Return(gast.Name(value, gast.Load(), None, None)), run[-1])
        definition = located(gast.FunctionDef(kernel, arguments, [*run, returned], [], None,
                                              None), run[0])
        call = gast.Call(gast.Name(self.fused(), gast.Load(), None, None),
                         [gast.Name(kernel, gast.Load(), None, None)] +
                         [gast.Name(n, gast.Load(), None, None) for n in inputs], [])
        assign = located(gast.Assign([gast.Name(value, gast.Store(), None, None)], call),
                         run[-1])
        self.changed = True
        return [definition, assign]
