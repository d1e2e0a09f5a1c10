"""Functions in another module, called by the functions of tests/cases_calls.py."""
import numpy as onp

GAIN = 2.0


def scaled_tanh(z, gain=None):
    g = GAIN if gain is None else gain
    return onp.tanh(z) * g


def affine(W, x, b=0.5):
    y = W @ x
    y = y + b
    return y


def no_rule(z):
    y = z * 2.0
    return onp.frexp(y)[0]  # (no derivative rule: the error names this line)


class Projection:
    def __init__(self, w):
        self.w = w

    def __call__(self, z):
        return onp.tanh(z @ self.w)  # (a shape error at run time names this line)
