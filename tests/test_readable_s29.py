"""Issue 39 §1, session 29: what the kinds decide is written as NumPy, and checked.

Each case differentiates a function, looks for (or against) a spelling in its source, and
checks the gradient against central differences in float64.
"""

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences

RNG = np.random.default_rng(29)


def softmax_xent(logits, labels):
    m = np.max(logits, axis=1, keepdims=True)
    logp = logits - m - np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return -np.mean(np.sum(labels * logp, axis=1))


def mean_axis0(x):
    return np.sum(np.sin(np.mean(x, axis=0)))


def mean_last_keepdims(x):
    return np.sum((x - np.mean(x, axis=-1, keepdims=True)) ** 2)


def _one_hot(rows, classes):
    return np.eye(classes)[RNG.integers(0, classes, rows)]


# (name, function, arguments, spellings the source has, spellings it has not)
CASES = [
    ("softmax-xent", softmax_xent, (RNG.normal(size=(4, 3)), _one_hot(4, 3)),
     [".size)[:, None]"], ["reduced_size", "sum_grad(sum_grad("]),
    ("mean-axis0", mean_axis0, (RNG.normal(size=(5, 3)),), ["/ x.shape[0]"],
     ["reduced_size"]),
    ("mean-last-keepdims", mean_last_keepdims, (RNG.normal(size=(2, 4)),),
     ["/ x.shape[1]"], ["reduced_size"]),
]


@pytest.mark.parametrize("name,f,args,has,has_not", CASES, ids=[c[0] for c in CASES])
def test_spelled_as_numpy_and_right(name, f, args, has, has_not):
    gradient = s2sad.grad(f)
    source = gradient.source_for(*args)
    for text in has:
        assert text in source, source
    for text in has_not:
        assert text not in source, source
    expected = central_differences(f, args, 0)
    np.testing.assert_allclose(gradient(*args), expected, rtol=1e-6, atol=1e-8)


def test_softmax_xent_of_an_empty_batch_is_empty():
    """A mean over no rows divides by a size of 0: the spread keeps NumPy's array division
    (an empty result), not a Python number's (ZeroDivisionError)."""
    gradient = s2sad.grad(softmax_xent)
    found = gradient(np.zeros((0, 3)), np.zeros((0, 3)))
    assert found.shape == (0, 3)
