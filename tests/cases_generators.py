"""A generator in a module of its own (tests/test_generators.py loops over it there)."""


def steps(x):
    for i in range(3):
        yield x * i
