"""Speelpenning's product of 100 floats, as a `for` loop and as straight-line code.

The straight-line version is generated (benchmarks/gen.py): unpack the 100
floats, then 99 multiplications. Arguments are a Python list of floats near 1.
The hand-written gradient is the O(n) prefix/suffix-product sweep.
"""

from ..gen import import_source, speelpenning_source
from .base import Workload

N = 100


def speelpenning_loop(x):
    p = 1.0
    for i in range(len(x)):
        p = p * x[i]
    return p


def grad_speelpenning_hand(x):
    n = len(x)
    g = [0.0] * n
    p = 1.0
    for i in range(n):
        g[i] = p
        p *= x[i]
    s = 1.0
    for i in range(n - 1, -1, -1):
        g[i] *= s
        s *= x[i]
    return (g,)


def workloads(quick=False):
    n = 10 if quick else N

    def make_args(rng, quick):
        return ([float(v) for v in 1.0 + 0.05 * rng.standard_normal(n)],)
    straight = import_source(f"speelpenning_straight_{n}",
                             speelpenning_source(n)).speelpenning_straight
    return [
        Workload("speelpenning (straight)",
                 f"product of {N} floats, generated straight-line code ({N - 1} multiplies)",
                 straight, grad_speelpenning_hand, make_args),
        Workload("speelpenning (loop)", f"product of {N} floats, `for i in range(len(x))`",
                 speelpenning_loop, grad_speelpenning_hand, make_args),
    ]
