"""Checkpointing: trade recomputation for memory on a long loop.

A gradient's forward sweep records what its reverse sweep will need: for a loop of
``T`` steps, every step's intermediate values. ``s2sad.checkpoint(segment)`` makes
calls of ``segment`` record nothing inside: the reverse sweep runs ``segment`` again
(now recording) and then its own reverse sweep, one segment at a time. With ``T``
steps cut into segments of ``K``, the recording drops from ``T`` steps' worth of
intermediates to ``T / K`` states plus one segment's intermediates; the price is
running each segment forward twice.

Run: ``python -m examples.checkpoint`` (prints the peak memory of each gradient,
measured with ``tracemalloc``, and its time).
"""

import time
import tracemalloc

import numpy as np

import s2sad

STEPS_PER_SEGMENT = 50


def segment(h, W, u):
    """``STEPS_PER_SEGMENT`` steps of a small recurrent update."""
    for _ in range(STEPS_PER_SEGMENT):
        a = W @ h
        b = np.tanh(a + u)
        c = b * b
        h = 0.5 * h + 0.5 * (b - 0.1 * c)
    return h


segment_checkpointed = s2sad.checkpoint(segment)


def loss(h, W, u, segments):
    for _ in range(segments):
        h = segment(h, W, u)
    return np.sum(h ** 2)


def loss_checkpointed(h, W, u, segments):
    for _ in range(segments):
        h = segment_checkpointed(h, W, u)
    return np.sum(h ** 2)


def measure(gradient, *args):
    """``(result, peak bytes allocated, seconds)`` of one call (compiled beforehand)."""
    gradient(*args)
    tracemalloc.start()
    start = time.perf_counter()
    result = gradient(*args)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, peak, seconds


def compare(n=200, segments=40, seed=0):
    """The two gradients of the same loss, checked equal; their memory and time."""
    rng = np.random.default_rng(seed)
    h, W, u = rng.normal(size=n), rng.normal(size=(n, n)) / np.sqrt(n), rng.normal(size=n)
    plain = s2sad.grad(loss, wrt=1)
    checkpointed = s2sad.grad(loss_checkpointed, wrt=1)
    g1, peak1, t1 = measure(plain, h, W, u, segments)
    g2, peak2, t2 = measure(checkpointed, h, W, u, segments)
    np.testing.assert_allclose(g1, g2, rtol=1e-9, atol=1e-12)
    return (peak1, t1), (peak2, t2)


def main():
    segments = 40
    (peak1, t1), (peak2, t2) = compare(segments=segments)
    steps = segments * STEPS_PER_SEGMENT
    print(f"{steps} steps ({segments} segments of {STEPS_PER_SEGMENT}), vectors of 200:")
    print(f"  recording everything: peak {peak1 / 2**20:7.2f} MiB, {t1 * 1e3:7.1f} ms")
    print(f"  checkpointed:         peak {peak2 / 2**20:7.2f} MiB, {t2 * 1e3:7.1f} ms")
    print(f"  memory saved: {1 - peak2 / peak1:.0%}; time paid: x{t2 / t1:.2f}")
    print("\nthe checkpointed gradient's code (the segment recomputed in its reverse sweep):")
    print(s2sad.grad(loss_checkpointed, wrt=1).source)


if __name__ == "__main__":
    main()
