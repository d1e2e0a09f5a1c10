"""A tanh RNN unrolled by a `for` loop: T = 20 steps, hidden 32, batch 16, input 8.

Loss: squared distance of the last hidden state to a target. Gradient with
respect to Wx, Wh and b. The hand-written gradient keeps the hidden states and
runs backpropagation through time.
"""

import numpy as np

from .base import Workload


def rnn(Wx, Wh, b, xs, h0, target):
    h = h0
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.sum((h - target) ** 2)


def grad_rnn_hand(Wx, Wh, b, xs, h0, target):
    hs = [h0]
    h = h0
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
        hs.append(h)
    dh = 2.0 * (h - target)
    dWx = np.zeros_like(Wx)
    dWh = np.zeros_like(Wh)
    db = np.zeros_like(b)
    for t in range(len(xs) - 1, -1, -1):
        da = dh * (1.0 - hs[t + 1] ** 2)
        dWx += xs[t].T @ da
        dWh += hs[t].T @ da
        db += np.sum(da, axis=0)
        dh = da @ Wh.T
    return dWx, dWh, db


def make_args(rng, quick):
    T, batch, n_in, hidden = (4, 4, 3, 5) if quick else (20, 16, 8, 32)
    Wx = rng.standard_normal((n_in, hidden)) / np.sqrt(n_in)
    Wh = rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)
    b = 0.1 * rng.standard_normal(hidden)
    xs = rng.standard_normal((T, batch, n_in))
    h0 = np.zeros((batch, hidden))
    target = 0.5 * rng.standard_normal((batch, hidden))
    return Wx, Wh, b, xs, h0, target


def torch_rnn(torch):
    def rnn(Wx, Wh, b, xs, h0, target):
        h = h0
        for t in range(len(xs)):
            h = torch.tanh(xs[t] @ Wx + h @ Wh + b)
        return torch.sum((h - target) ** 2)
    return rnn


WORKLOADS = [Workload("RNN", "tanh RNN, `for t in range(T)`, T=20, hidden 32, batch 16, "
                      "wrt Wx Wh b", rnn, grad_rnn_hand, make_args, wrt=(0, 1, 2),
                      torch_f=torch_rnn)]
