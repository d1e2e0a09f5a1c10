"""A small multi-layer perceptron classifier, written in plain NumPy for s2sad.

Used by the training and GPU notebooks (04, 05) and by the command-line examples::

    s2sad show examples/mlp.py:loss
"""

import itertools

import numpy as np

import s2sad


def loss(params, X, Y):
    """Mean cross-entropy of a tanh MLP: ``params = [W1, b1, W2, b2]``, ``Y`` one-hot."""
    W1, b1, W2, b2 = params
    H = np.tanh(X @ W1 + b1)
    logits = H @ W2 + b2
    # log-softmax, shifted by the row maximum for stability (the shift does not change the
    # loss, so no gradient needs to flow through it)
    shifted = logits - s2sad.stop_gradient(np.max(logits, axis=1, keepdims=True))
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * log_probs, axis=1))


def predict(params, X, xp=np):
    """The most likely class of each row of ``X`` (``xp``: ``numpy`` or ``cupy``)."""
    W1, b1, W2, b2 = params
    return xp.argmax(xp.tanh(X @ W1 + b1) @ W2 + b2, axis=1)


def init(sizes, seed=0, xp=np):
    """Random weights and zero biases for layers of the given sizes, e.g. ``(64, 32, 10)``."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        params.append(xp.asarray(rng.normal(0.0, 1.0 / np.sqrt(fan_in), (fan_in, fan_out))))
        params.append(xp.zeros(fan_out))
    return params
