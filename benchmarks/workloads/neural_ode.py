"""A neural ODE fitted through ``scipy.integrate.solve_ivp``: state 4, one tanh hidden layer
of 32, 10 observation times, RK45 at rtol 1e-6, atol 1e-8.

Loss: sum of squares of ``y(t_k) - data_k``. Gradient with respect to W1, b1, W2 and b2.
The hand-written gradient is the continuous adjoint method, as s2sad's is: the state, its
adjoint and the parameters' sensitivity integrated backwards together by solve_ivp, with
the same method and tolerances, restarting at each observation time; the right-hand
side's vector-Jacobian products written out by hand (the hidden layer computed once for
both the value and the products).
"""

import numpy as np
from scipy.integrate import solve_ivp

from .base import Workload

RTOL, ATOL = 1e-6, 1e-8


def mlp_rhs(t, y, W1, b1, W2, b2):
    return np.tanh(y @ W1 + b1) @ W2 + b2


def neural_ode(W1, b1, W2, b2, y0, times, data):
    sol = solve_ivp(mlp_rhs, (0.0, 1.0), y0, t_eval=times, args=(W1, b1, W2, b2), rtol=RTOL,
                    atol=ATOL)
    return np.sum((sol.y.T - data) ** 2)


def grad_neural_ode_hand(W1, b1, W2, b2, y0, times, data):
    sol = solve_ivp(mlp_rhs, (0.0, 1.0), y0, t_eval=times, args=(W1, b1, W2, b2), rtol=RTOL,
                    atol=ATOL)
    ys = sol.y.T
    g = 2.0 * (ys - data)
    n, sizes = y0.size, [W1.size, b1.size, W2.size, b2.size]

    def backwards(t, z):
        y, a = z[:n], z[n:2 * n]
        h = np.tanh(y @ W1 + b1)
        dh = (W2 @ a) * (1.0 - h * h)
        return np.concatenate([h @ W2 + b2, -(W1 @ dh), -np.outer(y, dh).ravel(), -dh,
                               -np.outer(h, a).ravel(), -a])
    a = np.zeros(n)
    m = np.zeros(sum(sizes))
    for k in range(len(times) - 1, -1, -1):
        a = a + g[k]
        start = times[k - 1] if k > 0 else 0.0
        if times[k] == start:
            continue
        z = solve_ivp(backwards, (times[k], start), np.concatenate([ys[k], a, m]), rtol=RTOL,
                      atol=ATOL).y[:, -1]
        a, m = z[n:2 * n], z[2 * n:]
    cuts = np.cumsum(sizes)[:-1]
    parts = np.split(m, cuts)
    return tuple(p.reshape(w.shape) for p, w in zip(parts, (W1, b1, W2, b2)))


def make_args(rng, quick):
    n, hidden, count = (2, 4, 3) if quick else (4, 32, 10)
    W1 = rng.standard_normal((n, hidden)) / np.sqrt(n)
    b1 = 0.1 * rng.standard_normal(hidden)
    W2 = rng.standard_normal((hidden, n)) / np.sqrt(hidden)
    b2 = 0.1 * rng.standard_normal(n)
    y0 = rng.standard_normal(n)
    times = np.linspace(0.1, 1.0, count)
    data = rng.standard_normal((count, n))
    return W1, b1, W2, b2, y0, times, data


WORKLOADS = [Workload("neural ODE", "tanh MLP right-hand side (state 4, hidden 32) through "
                      "solve_ivp, 10 times, wrt W1 b1 W2 b2", neural_ode, grad_neural_ode_hand,
                      make_args, wrt=(0, 1, 2, 3),
                      # (a peer's own integrator, at the same tolerances, agrees to ~1e-5)
                      tolerance=(1e-4, 1e-4))]
