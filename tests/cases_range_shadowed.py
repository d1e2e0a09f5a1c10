"""A module whose ``range`` is its own: a loop over it is not the builtin's (test_loop_tape)."""


def range_shadowed(x):
    p = x
    for i in range(3):
        p = p * x + 1.0
    return p


def range(n):  # noqa: A001
    return [0, 1, 2][:n]
