"""A plain class of another module, for tests/test_adversarial_py_s31.py: a refusal in its
method is shown at its own line, in this file."""

import numpy as np


class Halving:
    """Halves its weights in place at each call (``self.w *= 0.5``)."""

    def __init__(self, w):
        self.w = w

    def shrink(self, v):
        self.w *= 0.5
        return np.sum(self.w * v)
