"""Layer classes that hold their parameters, differentiated with respect to them.

Used by the training notebook (04)::

    g = s2sad.grad(layers.loss, wrt="model")(model, X, Y)   # g: an MLP of gradients
"""

import numpy as np

import s2sad


class Dense:
    """``tanh(X @ W + b)``, or ``X @ W + b`` for the last layer: it holds ``W`` and ``b``
    (its parameters), its sizes and a flag (an int and a bool: not parameters)."""

    def __init__(self, n_in, n_out, rng, nonlinear=True):
        self.W = rng.normal(0.0, 1.0 / np.sqrt(n_in), (n_in, n_out))
        self.b = np.zeros(n_out)
        self.n_in, self.n_out = n_in, n_out
        self.nonlinear = nonlinear  # a bool: tanh or not (not a parameter)

    def __call__(self, X):
        Z = X @ self.W + self.b
        return np.tanh(Z) if self.nonlinear else Z


class MLP:
    """Dense layers in a list, tanh between them, the last one linear."""

    def __init__(self, sizes, seed=0):
        rng = np.random.default_rng(seed)
        self.layers = [Dense(n_in, n_out, rng, nonlinear=k < len(sizes) - 2)
                       for k, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:]))]

    def __call__(self, X):
        for layer in self.layers:
            X = layer(X)
        return X

    def step(self, gradient, rate):
        """One step of gradient descent: each parameter moves against its gradient."""
        for layer, g in zip(self.layers, gradient.layers):
            layer.W = layer.W - rate * g.W
            layer.b = layer.b - rate * g.b


def loss(model, X, Y):
    """Mean cross-entropy of ``model``'s softmax, ``Y`` one-hot."""
    logits = model(X)
    shifted = logits - s2sad.stop_gradient(np.max(logits, axis=1, keepdims=True))
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * log_probs, axis=1))
