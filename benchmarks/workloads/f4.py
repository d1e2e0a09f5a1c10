"""The seed's f4 (examples/f4.py) on four Python floats: 2 * (abc + abd + acd + bcd).

The hand-written gradient is the closed form an expert writes (five multiplies
shared), not the seed's mechanical ``grad_f4`` with its ``+=`` accumulations.
"""

from examples.f4 import f4

from .base import Workload


def grad_f4_hand(side_lengths):
    a, b, c, d = side_lengths
    ab = a * b
    cd = c * d
    c_d = c + d
    a_b = a + b
    return ([2.0 * (b * c_d + cd), 2.0 * (a * c_d + cd), 2.0 * (ab + d * a_b),
             2.0 * (ab + c * a_b)],)


def make_args(rng, quick):
    return ([1.0, 2.0, 3.0, 4.0],)


WORKLOADS = [Workload("f4", "seed's f4, 4 Python floats (gradient [52, 38, 28, 22])",
                      f4, grad_f4_hand, make_args)]
