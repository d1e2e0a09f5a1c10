"""Functions whose CuPy gradients are checked byte for byte (tests/test_cupy.py)."""

import numpy as np
import numpy.linalg as la
from numpy import tanh


def mlp_loss(W1, b1, W2, b2, x, y):
    """A one-hidden-layer tanh MLP with a mean squared error."""
    h = np.tanh(x @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def rnn_loss(W, U, xs, h0):
    """A tanh RNN unrolled over the rows of ``xs``: a loop."""
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h ** 2)


def rnn_batched_loss(Wx, Wh, b, xs, h0):
    """A batched tanh RNN: its reverse loop adds the weight terms after it (ProductSum of
    s2sad.runtime.terms); the bias's, decided by the kinds, a sum a step."""
    h = h0
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.sum(h * h)


def with_constants(x):
    """Constants made inside the function land on the device of the target."""
    ones = np.ones(x.shape[0])
    scale = np.linspace(0.0, 1.0, x.shape[0])
    return np.sum(tanh(x) * ones * scale) + la.norm(x)


def scatter(x, idx):
    """Reading with an integer array: the adjoint scatters with ``add.at``."""
    return np.sum(x[idx] ** 2)


def elementwise(x):
    """A chain of elementwise operations (a fusion candidate)."""
    return np.sum(np.exp(-x ** 2) * np.sin(3.0 * x) + 0.5 * x)
