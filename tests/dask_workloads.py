"""The workloads of the Dask target's tests (``tests/test_dask_target.py``), written for NumPy:
logistic regression, least squares and a Gaussian mixture's log-likelihood."""

from __future__ import annotations

import numpy as np


def logistic(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.sum(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def least_squares(w, X, y):
    r = X @ w - y
    return 0.5 * np.dot(r, r)


def gmm(params, X):
    """The log-likelihood of ``X`` under a mixture of diagonal Gaussians."""
    means, log_sigmas, logits = params
    sigmas = np.exp(log_sigmas)
    z = (X[:, None, :] - means[None, :, :]) / sigmas[None, :, :]
    log_p = -0.5 * np.sum(z ** 2, axis=2) - np.sum(log_sigmas, axis=1)[None, :] \
        - 0.5 * X.shape[1] * np.log(2.0 * np.pi)
    log_w = logits - np.max(logits)
    log_w = log_w - np.log(np.sum(np.exp(log_w)))
    a = log_p + log_w[None, :]
    m = np.max(a, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(a - m), axis=1)))


def _data(rows=120, columns=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rows, columns))
    w = 0.5 * rng.standard_normal(columns)
    y = (rng.random(rows) < 1.0 / (1.0 + np.exp(-X @ w))).astype(float)
    return w, X, y
