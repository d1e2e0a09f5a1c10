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


def adds_in_place(z):
    z += 1.0  # (z holds the caller's array: refused, at this line)
    return z


def shifted_root(z):
    return onp.sqrt(z - 5.0)  # (NaN for z < 5: debug_nans names this line)


def tiled(z):
    # (no rule for the next line: the message quotes it)
    parts = onp.frexp(onp.sum(z) * 3)
    return parts[0]


def scaled(z):
    w = z - 1.0
    return onp.sum(ones_vjp(w))  # (its rule fails in the reverse sweep)


def ones_vjp(x):
    return 2.0 * x


def doubled(d):
    y = d * 2.0  # (a dict given: the TypeError names this line)
    return y


def weighted_total(w, *terms, **options):
    """(Star parameters in another module: ``onp`` and ``GAIN`` are its own names.)"""
    scale = options["scale"] if "scale" in options else GAIN
    return onp.tanh(w) * sum(terms) * scale


class Accumulator:
    """A plain class of another module, made inside the user's function
    (tests/test_local_objects_s30.py): its methods read no name of this module."""

    def __init__(self, scale):
        self.scale = scale
        self.total = 0.0

    def add(self, v):
        self.total = self.total + self.scale * v * v


class Gained:
    """Its method reads ``GAIN``, a name of this module the user's module does not have."""

    def __init__(self, v):
        self.v = v

    def value(self):
        return self.v * GAIN
