"""The GPU workloads: NumPy functions (s2sad reads their source), their PyTorch twins,
and their arguments, made on the host with NumPy and moved to the device by the runner.

Each function is written once against ``np``; s2sad's CuPy target runs it on CuPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


def mlp(W1, b1, W2, b2, X, Y):
    """A 2-layer tanh MLP with a softmax cross-entropy (Y: one-hot labels)."""
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    m = np.max(z, axis=1, keepdims=True)
    e = np.exp(z - m)
    lse = np.log(np.sum(e, axis=1, keepdims=True)) + m
    return -np.sum(Y * (z - lse)) / X.shape[0]


def elementwise(x):
    """An elementwise chain, summed: a memory-bound kernel sequence."""
    return np.sum(np.tanh(x) * np.exp(-0.5 * x * x) + np.log(1.0 + x * x))


def rnn(Wx, Wh, b, xs, h0, target):
    """A tanh RNN unrolled by a `for` loop (the adjoint keeps a stack of hidden states)."""
    h = h0
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.sum((h - target) ** 2)


def torch_mlp(torch):
    def mlp(W1, b1, W2, b2, X, Y):
        h = torch.tanh(X @ W1 + b1)
        z = h @ W2 + b2
        m = torch.amax(z, dim=1, keepdim=True)
        e = torch.exp(z - m)
        lse = torch.log(torch.sum(e, dim=1, keepdim=True)) + m
        return -torch.sum(Y * (z - lse)) / X.shape[0]
    return mlp


def torch_elementwise(torch):
    def elementwise(x):
        return torch.sum(torch.tanh(x) * torch.exp(-0.5 * x * x) + torch.log(1.0 + x * x))
    return elementwise


def torch_rnn(torch):
    def rnn(Wx, Wh, b, xs, h0, target):
        h = h0
        for t in range(len(xs)):
            h = torch.tanh(xs[t] @ Wx + h @ Wh + b)
        return torch.sum((h - target) ** 2)
    return rnn


def mlp_args(batch, n_in=784, n_hidden=128, n_out=10):
    def make(rng):
        W1 = rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in)
        b1 = 0.1 * rng.standard_normal(n_hidden)
        W2 = rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden)
        b2 = 0.1 * rng.standard_normal(n_out)
        X = rng.standard_normal((batch, n_in))
        Y = np.eye(n_out)[rng.integers(0, n_out, batch)]
        return W1, b1, W2, b2, X, Y
    return make


def elementwise_args(n):
    def make(rng):
        return (rng.standard_normal(n),)
    return make


def rnn_args(T, batch, n_in, hidden):
    def make(rng):
        Wx = rng.standard_normal((n_in, hidden)) / np.sqrt(n_in)
        Wh = rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)
        b = 0.1 * rng.standard_normal(hidden)
        xs = rng.standard_normal((T, batch, n_in))
        h0 = np.zeros((batch, hidden))
        target = 0.5 * rng.standard_normal((batch, hidden))
        return Wx, Wh, b, xs, h0, target
    return make


@dataclass
class Workload:
    name: str
    title: str
    f: Callable
    torch_f: Callable          # torch_f(torch) -> the same function on tensors
    make_args: Callable        # make_args(rng) -> NumPy arguments
    wrt: tuple


def workloads(quick: bool = False) -> list[Workload]:
    """The table's rows; ``quick``: tiny sizes, for a smoke test."""
    if quick:
        return [
            Workload("MLP b8", "tanh MLP, batch 8, 32-16-10", mlp, torch_mlp,
                     mlp_args(8, 32, 16, 10), (0, 1, 2, 3)),
            Workload("MLP b256", "tanh MLP, batch 256, 32-16-10", mlp, torch_mlp,
                     mlp_args(256, 32, 16, 10), (0, 1, 2, 3)),
            Workload("elementwise 1e4", "elementwise chain, 10^4 elements", elementwise,
                     torch_elementwise, elementwise_args(10_000), (0,)),
            Workload("RNN T=4", "tanh RNN, T=4, batch 4, 3-5", rnn, torch_rnn,
                     rnn_args(4, 4, 3, 5), (0, 1, 2)),
        ]
    return [
        Workload("MLP b64", "tanh MLP + softmax cross-entropy, batch 64, 784-128-10, "
                 "wrt W1 b1 W2 b2", mlp, torch_mlp, mlp_args(64), (0, 1, 2, 3)),
        Workload("MLP b8192", "the same MLP, batch 8192", mlp, torch_mlp, mlp_args(8192),
                 (0, 1, 2, 3)),
        Workload("elementwise 1e7", "sum(tanh(x) exp(-x^2/2) + log(1 + x^2)), 10^7 float64",
                 elementwise, torch_elementwise, elementwise_args(10_000_000), (0,)),
        Workload("RNN T=50", "tanh RNN, `for t in range(T)`, T=50, batch 128, 64-256, "
                 "wrt Wx Wh b", rnn, torch_rnn, rnn_args(50, 128, 64, 256), (0, 1, 2)),
    ]
