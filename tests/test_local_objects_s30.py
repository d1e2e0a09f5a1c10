"""Objects of a plain class of *another* module, made inside the differentiated function
(``from model import Accumulator``): followed as the class of the function's own module is
(``transforms/local_objects.py``), where the methods read no name that means something
else in the function's module; else refused, never wrong."""

import numpy as np
import pytest
from helpers_other_module import Accumulator, Gained
from test_overrefusals_s28 import central

import s2sad

X = np.array([0.3, -0.5, 1.2])


def straight(x):
    acc = Accumulator(x[0])
    acc.add(x[1])
    acc.add(x[2] ** 2)
    return acc.total


def in_a_loop(x):
    total = 0.0
    for i in range(2):
        acc = Accumulator(x[i])
        acc.add(x[2])
        total = total + acc.total
    return total


def in_a_branch(x):
    if x[2] > 0:
        acc = Accumulator(x[0])
    else:
        acc = Accumulator(2.0)
    acc.add(x[1])
    return acc.total * x[2]


@pytest.mark.parametrize("f", [straight, in_a_loop, in_a_branch])
def test_an_object_of_another_modules_class_is_followed(f):
    np.testing.assert_allclose(s2sad.grad(f)(X.copy()), central(f, X), rtol=1e-6, atol=1e-8)


def reads_the_other_modules_name(x):
    g = Gained(x[0])
    return g.value() * x[1]


def test_a_method_reading_a_name_of_its_own_module_is_refused_not_misread():
    # (GAIN means nothing here: read as this module's code, the method would fail or, with
    # a GAIN of this module, read the wrong value)
    with pytest.raises(s2sad.DifferentiationError):
        s2sad.grad(reads_the_other_modules_name)(X.copy())
