"""The NumPy target: generated code imports NumPy itself, and runs on the CPU.

>>> import numpy as np
>>> NUMPY.describe(np.ones((2, 3))), NUMPY.describe([1.0]), NUMPY.translates
(('nd', 2, 'f'), None, False)
"""

from __future__ import annotations

import numpy as np

from .base import Backend


class NumPyBackend(Backend):
    """NumPy arrays, described ``("nd", rank, dtype kind)``. Its functions take lists and
    numbers; it refuses no argument (CuPy arrays, given, meet NumPy's dispatch)."""

    name = "numpy"
    title = "NumPy"
    module = "numpy"
    short = "np"
    tag = "nd"
    libraries = frozenset({"numpy"})

    def describe(self, value) -> tuple | None:
        if type(value) is np.ndarray:
            return (self.tag, value.ndim, value.dtype.kind)
        return None

    def claims(self, desc) -> bool:
        # a NumPy number or 0-d array goes with any target: only a real array chooses
        return super().claims(desc) and desc[1] > 0


NUMPY = NumPyBackend()
