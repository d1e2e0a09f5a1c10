"""GradBench-style Gaussian mixture log-likelihood (the ADBench/GradBench `gmm` objective).

n = 1,000 points in d = 10 dimensions, K = 25 components, with the Wishart
prior. As in GradBench each component's inverse covariance factor is
diag(exp(q)) + L with L strictly lower triangular; here L is passed as a dense
(K, d, d) array times a fixed lower-triangular mask instead of GradBench's packed
vector (building L from the packed vector needs scatter, which s2sad does not
differentiate). Gradient with respect to alphas, means, q and L. Computed in
component-major layout (K, n, d) so that the L-products are K batched matmuls.
"""

import numpy as np

from .base import Workload


def gmm(alphas, means, qs, Ls, x, mask, gamma, m):
    Q = np.exp(qs)
    L = Ls * mask
    xc = x[None, :, :] - means[:, None, :]
    Lx = Q[:, None, :] * xc + xc @ np.transpose(L, (0, 2, 1))
    inner = (alphas + np.sum(qs, axis=1))[:, None] - 0.5 * np.sum(Lx * Lx, axis=2)
    mx = np.max(inner, axis=0, keepdims=True)
    lse = np.log(np.sum(np.exp(inner - mx), axis=0, keepdims=True)) + mx
    amax = np.max(alphas)
    lse_alphas = np.log(np.sum(np.exp(alphas - amax))) + amax
    prior = 0.5 * gamma * gamma * (np.sum(Q * Q) + np.sum(L * L)) - m * np.sum(qs)
    return np.sum(lse) - x.shape[0] * lse_alphas + prior - 0.5 * x.size * np.log(2.0 * np.pi)


def grad_gmm_hand(alphas, means, qs, Ls, x, mask, gamma, m):
    Q = np.exp(qs)
    L = Ls * mask
    xc = x[None, :, :] - means[:, None, :]                      # (K, n, d)
    Lx = Q[:, None, :] * xc + xc @ np.transpose(L, (0, 2, 1))
    inner = (alphas + np.sum(qs, axis=1))[:, None] - 0.5 * np.sum(Lx * Lx, axis=2)
    r = np.exp(inner - np.max(inner, axis=0, keepdims=True))
    r /= np.sum(r, axis=0, keepdims=True)                       # responsibilities (K, n)
    w = np.exp(alphas - np.max(alphas))
    rk = np.sum(r, axis=1)
    d_alphas = rk - x.shape[0] * (w / np.sum(w))
    G = -r[:, :, None] * Lx                                     # d objective / d Lx
    d_qs = (np.sum(G * xc, axis=1) + gamma * gamma * Q) * Q + (rk - m)[:, None]
    d_L = (np.transpose(G, (0, 2, 1)) @ xc + gamma * gamma * L) * mask
    d_means = -np.sum(Q[:, None, :] * G + G @ L, axis=1)
    return d_alphas, d_means, d_qs, d_L


def make_args(rng, quick):
    n, d, K = (20, 3, 4) if quick else (1_000, 10, 25)
    alphas = rng.standard_normal(K)
    means = rng.standard_normal((K, d))
    qs = 0.1 * rng.standard_normal((K, d))
    Ls = 0.1 * rng.standard_normal((K, d, d))
    x = rng.standard_normal((n, d))
    mask = np.tril(np.ones((d, d)), -1)
    return alphas, means, qs, Ls, x, mask, 1.0, 0.0


def torch_gmm(torch):
    import math

    def gmm(alphas, means, qs, Ls, x, mask, gamma, m):
        Q = torch.exp(qs)
        L = Ls * mask
        xc = x[None, :, :] - means[:, None, :]
        Lx = Q[:, None, :] * xc + xc @ torch.transpose(L, 1, 2)
        inner = (alphas + torch.sum(qs, dim=1))[:, None] - 0.5 * torch.sum(Lx * Lx, dim=2)
        mx = torch.amax(inner, dim=0, keepdim=True)
        lse = torch.log(torch.sum(torch.exp(inner - mx), dim=0, keepdim=True)) + mx
        amax = torch.amax(alphas)
        lse_alphas = torch.log(torch.sum(torch.exp(alphas - amax))) + amax
        prior = 0.5 * gamma * gamma * (torch.sum(Q * Q) + torch.sum(L * L)) - m * torch.sum(qs)
        return (torch.sum(lse) - x.shape[0] * lse_alphas + prior
                - 0.5 * x.numel() * math.log(2.0 * math.pi))
    return gmm


WORKLOADS = [Workload("GMM", "GradBench-style GMM log-likelihood + Wishart prior, n=1000 "
                      "d=10 K=25, wrt alphas means q L", gmm, grad_gmm_hand, make_args,
                      wrt=(0, 1, 2, 3), torch_f=torch_gmm)]
