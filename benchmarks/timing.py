"""Timing (timeit-style median) and peak memory (tracemalloc) of one call."""

from __future__ import annotations

import gc
import random
import statistics
import time
import timeit
import tracemalloc
from dataclasses import dataclass


@dataclass
class Settings:
    min_time: float = 0.1    # seconds: a timing sample runs the call `number` times, >= this
    repeat: int = 7          # samples, median taken ...
    budget: float = 2.0      # ... but fewer (at least min_repeat) where they'd take longer
    min_repeat: int = 3
    clock: object = time.process_time   # or time.perf_counter (wall clock)


QUICK = Settings(min_time=0.002, repeat=3, budget=0.05, min_repeat=1)
FULL = Settings()


def _calibrate(timer, settings: Settings) -> tuple[int, float]:
    """Loops per sample, as timeit.autorange does (1, 2, 5, 10, 20, ...), and that
    sample's time."""
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= settings.min_time:
            return number, elapsed
        number = number * 5 // 2 if str(number)[0] == "2" else number * 2


def measure_interleaved(calls: dict, settings: Settings) -> dict:
    """Median seconds per call of each of ``calls`` (name -> zero-argument callable).

    Each call gets its number of loops per sample as timeit finds it, then the
    samples are taken round-robin (one sample of each call per round), so that
    load from other processes falls on all of them alike. A call whose samples are
    slow gets fewer of them: ``budget`` seconds' worth, at least ``min_repeat``.
    The clock is settings.clock: process CPU time by default (time spent
    descheduled by other processes on a shared machine does not count).
    """
    return {name: statistics.median(values)
            for name, values in measure_rounds(calls, settings).items()}


def paired_ratio(samples_a: list, samples_b: list) -> float:
    """The median over rounds of ``a / b``, each ratio of two samples taken side by side in
    the same round (``measure_rounds``). On a shared machine whose speed drifts from
    second to second, the ratio within a round cancels the drift that the ratio of two
    medians, taken over the whole run, keeps.

    >>> paired_ratio([2.0, 4.0, 3.3], [1.0, 2.0, 3.0])
    2.0
    """
    rounds = min(len(samples_a), len(samples_b))
    return statistics.median(a / b for a, b in zip(samples_a[:rounds], samples_b[:rounds]))


def measure_rounds(calls: dict, settings: Settings) -> dict:
    """The samples (seconds per call) of each of ``calls``, round by round: sample ``r``
    of every call was taken in round ``r`` (see ``measure_interleaved``), each round in an
    order of its own."""
    timers, numbers, rounds = {}, {}, {}
    for name, call in calls.items():
        timers[name] = timeit.Timer(call, timer=settings.clock)   # GC off while timing
        numbers[name], elapsed = _calibrate(timers[name], settings)
        rounds[name] = max(settings.min_repeat, min(settings.repeat,
                                                    int(settings.budget / elapsed)))
    samples: dict = {name: [] for name in calls}
    names = list(calls)
    for r in range(max(rounds.values(), default=0)):
        # each round in an order of its own (seeded): no call always follows the same one
        # (the call after a gradient that frees large arrays can run slower, whichever it is)
        order = list(names)
        random.Random(r).shuffle(order)
        for name in order:
            if r < rounds[name]:
                samples[name].append(timers[name].timeit(numbers[name]) / numbers[name])
    return samples


def peak_memory(call) -> int:
    """Peak bytes traced by tracemalloc during one call (NumPy reports its buffers)."""
    gc.collect()
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class TimeLimit(Exception):
    """Raised inside a call that ran past its time limit."""


class time_limit:
    """``with time_limit(60): ...`` raises TimeLimit in the block after 60 s (SIGALRM;
    main thread, POSIX; elsewhere it never fires)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.armed = False

    def _fire(self, signum, frame):
        raise TimeLimit(f"ran past the {self.seconds:g} s limit")

    def __enter__(self):
        import signal
        import threading
        if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self.armed = True
        return self

    def __exit__(self, *exc):
        if self.armed:
            import signal
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return False
