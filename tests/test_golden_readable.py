"""Golden readable forms: the gradient source of a dozen typical functions, byte for byte.

Each case builds a derivative for example arguments and compares its source with
``tests/golden/<name>.txt`` (the file holds what ``s2sad show --at`` prints, less the
first comment), then checks the gradient against central differences. After a reviewed
change of the generated code, rewrite the files with::

    S2SAD_GOLDEN=update python -m pytest -q tests/test_golden_readable.py
"""

import os

import numpy as np
import pytest

import s2sad
from examples import eager, mlp
from examples.f4 import f4
from test_higher_order import central_differences

from golden import functions as F

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
RNG = np.random.default_rng(39)


def _one_hot(rows, classes):
    return np.eye(classes)[RNG.integers(0, classes, rows)]


def _cases():
    logits = RNG.normal(size=(4, 3))
    X, y = RNG.normal(size=(10, 3)), RNG.integers(0, 2, 10).astype(float)
    params = mlp.init((4, 5, 3), seed=1)
    params[1], params[3] = RNG.normal(size=5) * 0.1, RNG.normal(size=3) * 0.1
    return [
        ("softmax_xent", s2sad.grad(F.softmax_xent), (logits, _one_hot(4, 3)), 0),
        ("mlp", s2sad.grad(mlp.loss), (params, RNG.normal(size=(8, 4)), _one_hot(8, 3)), 0),
        ("logistic_regression", s2sad.grad(F.logistic_regression),
         (RNG.normal(size=3), X, y), 0),
        ("least_squares", s2sad.grad(F.least_squares), (RNG.normal(size=3), X, y), 0),
        ("rnn_step", s2sad.grad(F.rnn_step), (RNG.normal(size=(4, 4)) * 0.5, RNG.normal(size=4),
                                              RNG.normal(size=2), RNG.normal(size=(4, 2)),
                                              RNG.normal(size=4)), 0),
        ("logsumexp", s2sad.grad(F.logsumexp), (RNG.normal(size=5),), 0),
        ("polynomial", s2sad.grad(eager.polynomial), (np.arange(4.0),), 0),
        ("twice_dot", s2sad.grad(eager.twice_dot), (np.arange(3.0),), 0),
        ("regression_loss", s2sad.grad(eager.regression_loss, wrt=(0, 1)),
         (0.5, 0.25, np.arange(5.0), np.arange(5.0) * 2.0 + 1.0), (0, 1)),
        ("f4", s2sad.grad(f4), ([1.0, 2.0, 3.0, 4.0],), 0),
        ("cubic_order_2", s2sad.grad(s2sad.grad(F.cubic)), (0.75,), 0),
        ("cube_order_2", s2sad.grad(s2sad.grad(eager.cube)), (0.5,), 0),
    ]


CASES = _cases()


def _numeric(f, args, wrt):
    """Central differences of ``f`` (the function differentiated) in argument ``wrt``."""
    if isinstance(args[wrt], list) and not all(np.isscalar(a) for a in args[wrt]):
        items = []  # (a list of arrays: each item by itself)
        for i in range(len(args[wrt])):
            def one(item, i=i):
                parts = list(args[wrt])
                parts[i] = item
                return f(*args[:wrt], parts, *args[wrt + 1:])
            items.append(central_differences(lambda v: one(v), [args[wrt][i]], 0))
        return items
    return central_differences(f, args, wrt)


@pytest.mark.parametrize("name,gradient,args,wrt", CASES, ids=[c[0] for c in CASES])
def test_golden_readable_form(name, gradient, args, wrt):
    text = gradient.source_for(*args)
    path = os.path.join(HERE, f"{name}.txt")
    if os.environ.get("S2SAD_GOLDEN") == "update":
        with open(path, "w") as file:
            file.write(text)
    with open(path) as file:
        assert text == file.read()


@pytest.mark.parametrize("name,gradient,args,wrt", CASES, ids=[c[0] for c in CASES])
def test_golden_gradient_is_right(name, gradient, args, wrt):
    found = gradient(*args)
    inner = gradient.func
    for k, w in enumerate(wrt if isinstance(wrt, tuple) else (wrt,)):
        part = found[k] if isinstance(wrt, tuple) else found
        if isinstance(inner, type(gradient)):  # (a derivative of a derivative)
            expected = central_differences(inner, args, w)
        else:
            expected = _numeric(inner, args, w)
        if isinstance(expected, list):
            for a, b in zip(part, expected):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
        else:
            np.testing.assert_allclose(np.asarray(part, dtype=float), expected, rtol=1e-6,
                                       atol=1e-8)
