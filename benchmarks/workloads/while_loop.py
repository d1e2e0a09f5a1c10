"""A scalar `while` loop of ~1,000 data-dependent steps, on Python floats.

y starts at b and moves by a * (1 + sin(y) / 2) until it passes 10; with
a = 0.01, b = 0 that is about 1,000 steps. Gradient with respect to a and b.
The hand-written gradient records the trajectory, then sweeps it backwards.
"""

from math import cos, sin

from .base import Workload


def while_loop(a, b):
    y = b
    while y < 10.0:
        y = y + a * (1.0 + 0.5 * sin(y))
    return y * y


def grad_while_loop_hand(a, b):
    ys = []
    sines = []
    y = b
    while y < 10.0:
        ys.append(y)
        s = sin(y)
        sines.append(s)
        y = y + a * (1.0 + 0.5 * s)
    s_y = 2.0 * y
    s_a = 0.0
    for k in range(len(ys) - 1, -1, -1):
        s_a += s_y * (1.0 + 0.5 * sines[k])
        s_y *= 1.0 + 0.5 * a * cos(ys[k])
    return s_a, s_y


def make_args(rng, quick):
    return (0.01, 0.0) if not quick else (0.2, 0.0)


WORKLOADS = [Workload("while loop", "scalar `while`, ~1,000 data-dependent steps, wrt a and b",
                      while_loop, grad_while_loop_hand, make_args, wrt=(0, 1))]
