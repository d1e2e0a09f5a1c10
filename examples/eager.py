"""The seed's TensorFlow-eager examples as plain NumPy functions, for the command line::

    s2sad show examples/eager.py:control_flow --annotate
    s2sad check examples/eager.py:control_flow --at 0.3
    s2sad check examples/eager.py:polynomial --at 'np.arange(4.0)'
    s2sad show examples/eager.py:cube --order 2

Notebook 03_tensorflow_eager_examples.ipynb goes through them one by one.
"""

import numpy as np

import s2sad


def twice_dot(x):
    """``y = 2 * tensordot(x, x)``: the gradient is ``4 * x``."""
    return 2 * np.dot(x, x)


def polynomial(x):
    """``sum(2 x^2 + 3 x + 10)``: the gradient is ``4 x + 3``."""
    return np.sum(2 * x ** 2 + 3 * x + 10)


def detached(x):
    """``z = 2 u x`` with ``u = x^3`` detached: the gradient is ``2 u``, not ``8 x^3``.

    (``s2sad check`` reports a mismatch here, rightly: finite differences see through
    ``stop_gradient``.)
    """
    y = x ** 3
    u = s2sad.stop_gradient(y)
    z = 2 * u * x
    return np.sum(z)


def cube(x):
    """``x^3``: first derivative ``3 x^2``, second ``6 x``."""
    return x * x * x


def control_flow(a):
    """A loop and a branch that depend on the input (the seed's last example)."""
    b = a * 2
    while np.linalg.norm(b) < 1000:
        b = b * 2
    if np.sum(b) > 0:
        c = b
    else:
        c = 100 * b
    return c


def regression_loss(w, b, real_x, real_y):
    """The slides' linear regression with an absolute loss (``fit_data``), for ``w`` and ``b``."""
    pred_y = w * real_x + b
    return np.sum(np.abs(real_y - pred_y))
