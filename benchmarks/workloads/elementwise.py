"""An elementwise function of 10^6 float64s, summed."""

import numpy as np

from .base import Workload


def elementwise(x):
    return np.sum(np.tanh(x) * np.exp(-0.5 * x * x) + np.log(1.0 + x * x))


def grad_elementwise_hand(x):
    t = np.tanh(x)
    x2 = x * x
    e = np.exp(-0.5 * x2)
    return (e * (1.0 - t * t - t * x) + 2.0 * x / (1.0 + x2),)


def make_args(rng, quick):
    return (rng.standard_normal(1_000 if quick else 1_000_000),)


def torch_elementwise(torch):
    def elementwise(x):
        return torch.sum(torch.tanh(x) * torch.exp(-0.5 * x * x) + torch.log(1.0 + x * x))
    return elementwise


WORKLOADS = [Workload("elementwise 1e6", "sum(tanh(x) exp(-x^2/2) + log(1 + x^2)), "
                      "10^6 elements", elementwise, grad_elementwise_hand, make_args,
                      torch_f=torch_elementwise)]
