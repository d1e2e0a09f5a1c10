"""Functions s2sad must refuse, each with a located error (used by test_errors.py)."""
import numpy as np

from tests.helpers_other_module import no_rule


def uses_with(x):
    with open("log") as fh:  # noqa: F841
        y = x * 2.0
    return y


def may_not_return(x):
    if x > 0:
        return x


def updates_argument(x):
    x[0] = 2.0 * x[1]
    return np.sum(x)


def updates_shared(x):
    y = x * 1.0
    z = y
    y[0] = 1.0
    return np.sum(z * x)


def uses_lambda(x):
    y = (lambda v: v * 2.0)(x)
    return y


def uses_unknown_call(x):
    y = np.fft.fft(x)
    return np.sum(np.abs(y))


def returns_vector(x):
    return x * 2.0


def undefined_name(x):
    return x * not_defined_anywhere  # noqa: F821


def early_return(x):
    return x
    y = x * 2.0  # noqa: F841


def uses_global_write(x):
    global counter
    counter = 1
    return x


def recursive(x, n):
    if n == 0:
        y = x
    else:
        y = x * recursive(x, n - 1)
    return y


def calls_a_helper_without_a_rule(x):
    return np.sum(no_rule(x) * 2.0)


def calls_a_projection(x, layer):
    y = x + 1.0
    return np.sum(layer(y))
