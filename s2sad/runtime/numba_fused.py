"""The check the numba target's wrapper makes before it calls a fused kernel
(``s2sad.transforms.numba_fusion``): its loops are NumPy's result only on 1-D float64
arrays of one length. And what its blocks call NumPy for (``in_place``).

>>> import numpy as np
>>> fusable(np.ones(3), np.zeros(3)), fusable(np.ones(3), np.ones(1))
(True, False)
>>> fusable(np.ones(3, dtype=np.float32)), fusable(np.ones((3, 1)))
(False, False)
>>> out = np.array([0.0, 800.0])
>>> in_place(np.exp, out, out)   # (no overflow warning: numba's own code gives none)
>>> out
array([ 1., inf])
"""

from __future__ import annotations

import numpy as np

_FLOAT64 = np.dtype(np.float64)


def fusable(*arrays) -> bool:
    """Are ``arrays`` all 1-D float64 NumPy arrays of one length?"""
    first = arrays[0].shape
    return all(type(a) is np.ndarray and a.dtype == _FLOAT64 and a.ndim == 1 and
               a.shape == first for a in arrays)


def in_place(function, argument: np.ndarray, out: np.ndarray, *more) -> None:
    """NumPy's ``function`` of ``argument`` into ``out`` (and so on for each further
    triple in ``more``), warning of nothing (numba's code on numbers gives no warning
    either). A fused kernel calls it once a block, in a ``numba.objmode`` block: NumPy's
    loops are vectorized, numba's calls of the C library's ``tanh`` or ``exp`` are not.
    One call takes all the block's functions: the warnings are set once.

    >>> a, b = np.zeros(2), np.ones(2)
    >>> in_place(np.exp, a, a, np.negative, b, b)
    >>> a, b
    (array([1., 1.]), array([-1., -1.]))
    """
    with np.errstate(all="ignore"):
        function(argument, out=out)
        for k in range(0, len(more), 3):
            more[k](more[k + 1], out=more[k + 2])
