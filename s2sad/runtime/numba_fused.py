"""The check the numba target's wrapper makes before it calls a fused kernel
(``s2sad.transforms.numba_fusion``): its loops are NumPy's result only on 1-D float64
arrays of one length.

>>> import numpy as np
>>> fusable(np.ones(3), np.zeros(3)), fusable(np.ones(3), np.ones(1))
(True, False)
>>> fusable(np.ones(3, dtype=np.float32)), fusable(np.ones((3, 1)))
(False, False)
"""

from __future__ import annotations

import numpy as np

_FLOAT64 = np.dtype(np.float64)


def fusable(*arrays) -> bool:
    """Are ``arrays`` all 1-D float64 NumPy arrays of one length?"""
    first = arrays[0].shape
    return all(type(a) is np.ndarray and a.dtype == _FLOAT64 and a.ndim == 1 and
               a.shape == first for a in arrays)
