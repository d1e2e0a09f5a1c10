"""L2-regularized logistic regression: 10,000 samples, 100 features, labels +-1."""

import numpy as np

from .base import Workload


def logreg(w, X, y):
    z = X @ w
    return np.sum(np.log(1.0 + np.exp(-y * z))) + 0.0005 * np.sum(w * w)


def grad_logreg_hand(w, X, y):
    z = X @ w
    return (X.T @ (-y / (1.0 + np.exp(y * z))) + 0.001 * w,)


def make_args(rng, quick):
    n, d = (50, 5) if quick else (10_000, 100)
    X = rng.standard_normal((n, d))
    w_true = rng.standard_normal(d)
    y = np.where(X @ w_true + rng.standard_normal(n) > 0.0, 1.0, -1.0)
    w = 0.1 * rng.standard_normal(d)
    return w, X, y


def torch_logreg(torch):
    def logreg(w, X, y):
        z = X @ w
        return torch.sum(torch.log(1.0 + torch.exp(-y * z))) + 0.0005 * torch.sum(w * w)
    return logreg


WORKLOADS = [Workload("logistic regression", "logistic loss + L2, 10,000 x 100, wrt w",
                      logreg, grad_logreg_hand, make_args, torch_f=torch_logreg)]
