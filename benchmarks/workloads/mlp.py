"""A 2-layer tanh MLP with softmax cross-entropy, batch 64, 784 -> 128 -> 10.

Straight-line NumPy. Y holds one-hot labels and is not differentiated; the
gradient is with respect to the parameters W1, b1, W2, b2 (not the data X).
"""

import numpy as np

from .base import Workload


def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    m = np.max(z, axis=1, keepdims=True)
    e = np.exp(z - m)
    lse = np.log(np.sum(e, axis=1, keepdims=True)) + m
    return -np.sum(Y * (z - lse)) / X.shape[0]


def grad_mlp_hand(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    dz = (e / np.sum(e, axis=1, keepdims=True) - Y) / X.shape[0]   # rows of Y sum to 1
    dh = dz @ W2.T
    da = dh * (1.0 - h * h)
    return X.T @ da, np.sum(da, axis=0), h.T @ dz, np.sum(dz, axis=0)


def make_args(rng, quick):
    batch, n_in, n_hidden, n_out = (8, 32, 16, 10) if quick else (64, 784, 128, 10)
    W1 = rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in)
    b1 = 0.1 * rng.standard_normal(n_hidden)
    W2 = rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden)
    b2 = 0.1 * rng.standard_normal(n_out)
    X = rng.standard_normal((batch, n_in))
    Y = np.eye(n_out)[rng.integers(0, n_out, batch)]
    return W1, b1, W2, b2, X, Y


def torch_mlp(torch):
    def mlp(W1, b1, W2, b2, X, Y):
        h = torch.tanh(X @ W1 + b1)
        z = h @ W2 + b2
        m = torch.amax(z, dim=1, keepdim=True)
        e = torch.exp(z - m)
        lse = torch.log(torch.sum(e, dim=1, keepdim=True)) + m
        return -torch.sum(Y * (z - lse)) / X.shape[0]
    return mlp


WORKLOADS = [Workload("MLP", "tanh MLP + softmax cross-entropy, batch 64, 784-128-10, "
                      "wrt W1 b1 W2 b2", mlp, grad_mlp_hand, make_args, wrt=(0, 1, 2, 3),
                      torch_f=torch_mlp)]
