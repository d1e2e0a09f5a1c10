"""A Gaussian process's negative log marginal likelihood: n = 1,000 points in 5 dimensions,
an RBF kernel with its lengthscale and variance, and the noise variance (all three on a log
scale), computed with ``scipy.linalg.cholesky`` and ``solve_triangular`` as GP code is.

The hand-written gradient is the textbook one (Rasmussen and Williams, eq. 5.9):
``0.5 tr((K^-1 - a a^T) dK)``, ``a = K^-1 y``, with ``K^-1`` from the Cholesky factor.
"""

import numpy as np
import scipy.linalg as sl

from .base import Workload


def gp(log_ell, log_sf2, log_sn2, X, y):
    n = X.shape[0]
    sq = np.sum(X * X, axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    K = np.exp(log_sf2 - 0.5 * D * np.exp(-2.0 * log_ell)) + np.exp(log_sn2) * np.eye(n)
    L = sl.cholesky(K, lower=True)
    z = sl.solve_triangular(L, y, lower=True)
    return 0.5 * (z @ z) + np.sum(np.log(np.diag(L))) + 0.5 * n * np.log(2.0 * np.pi)


def grad_gp_hand(log_ell, log_sf2, log_sn2, X, y):
    n = X.shape[0]
    sq = np.sum(X * X, axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    Kf = np.exp(log_sf2 - 0.5 * D * np.exp(-2.0 * log_ell))
    L = sl.cholesky(Kf + np.exp(log_sn2) * np.eye(n), lower=True)
    a = sl.cho_solve((L, True), y)
    W = sl.cho_solve((L, True), np.eye(n)) - np.outer(a, a)   # K^-1 - a a^T
    WK = W * Kf
    return (0.5 * np.sum(WK * D) * np.exp(-2.0 * log_ell), 0.5 * np.sum(WK),
            0.5 * np.exp(log_sn2) * np.trace(W))


def make_args(rng, quick):
    n, d = (20, 2) if quick else (1_000, 5)
    X = rng.standard_normal((n, d))
    y = np.sin(X @ rng.standard_normal(d)) + 0.1 * rng.standard_normal(n)
    return np.log(1.2), np.log(0.8), np.log(0.05), X, y


WORKLOADS = [Workload("GP", "Gaussian-process marginal likelihood, RBF kernel, n=1000 d=5, "
                      "scipy.linalg cholesky and solve_triangular, wrt log lengthscale, "
                      "variance, noise", gp, grad_gp_hand, make_args, wrt=(0, 1, 2))]
