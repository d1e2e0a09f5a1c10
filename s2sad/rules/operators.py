"""Python's operators are the NumPy functions that implement them for arrays.

``a + b`` and ``a - b`` are handled by the compiler as linear sums (each term
gets the sensitivity, reduced to its shape); every other operator uses the rule
of the function in ``OPERATORS``.
"""

import gast
import numpy as np

OPERATORS = {
    gast.Add: np.add,
    gast.Sub: np.subtract,
    gast.Mult: np.multiply,
    gast.Div: np.true_divide,
    gast.Pow: np.power,
    gast.MatMult: np.matmul,
    gast.FloorDiv: np.floor_divide,
    gast.Mod: np.mod,
    gast.USub: np.negative,
    gast.UAdd: np.positive,
    gast.Not: np.logical_not,
    gast.Invert: np.invert,
    gast.BitAnd: np.bitwise_and,
    gast.BitOr: np.bitwise_or,
    gast.BitXor: np.bitwise_xor,
    gast.LShift: np.left_shift,
    gast.RShift: np.right_shift,
}
