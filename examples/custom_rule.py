"""Custom derivatives: your own rule for your own function, written into the generated code.

``log_sigmoid`` is computed stably with ``np.logaddexp``; its derivative is simply
``sigmoid(-x)``. Registering that as its adjoint (``@s2sad.custom_vjp``) and tangent
(``@s2sad.custom_jvp``) makes s2sad use it instead of differentiating the body: the
rule's expression appears in the generated gradient with the caller's names, and
the rule may call helpers of this module (``_sigmoid``, read from here at each
call). ``@s2sad.nondifferentiable`` marks a function whose output carries no
derivative (a rounding, a lookup). ``s2sad.check_grads`` checks the rule against
finite differences.

Run: ``python -m examples.custom_rule``, or from the command line
``s2sad show examples/custom_rule.py:loss --at '([0.1, 0.2], [[1.0, 2.0]], [1.0])'``.
"""

import numpy as np

import s2sad


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


def log_sigmoid(x):
    """``log(1 / (1 + exp(-x)))`` without overflow."""
    return -np.logaddexp(0.0, -x)


@s2sad.custom_vjp(log_sigmoid, shape="elementwise")
def log_sigmoid_vjp(g, ans, x):
    return g * _sigmoid(-x)


@s2sad.custom_jvp(log_sigmoid)
def log_sigmoid_jvp(g, ans, x):
    return g * _sigmoid(-x)


@s2sad.nondifferentiable
def quantize(x):
    """Rounded to a tenth: a step function, whose derivative is zero where it exists."""
    return np.round(x * 10.0) / 10.0


def loss(w, x, y):
    """Logistic regression's negative log-likelihood, labels ``y`` in {-1, 1}."""
    z = np.asarray(x) @ np.asarray(w)
    return -np.mean(log_sigmoid(np.asarray(y) * z))


def scaled(x):
    return x * quantize(x)


def main():
    rng = np.random.default_rng(0)
    w, x, y = rng.normal(size=3), rng.normal(size=(8, 3)), rng.choice([-1.0, 1.0], size=8)
    print(s2sad.grad(loss).source_for(w, x, y))
    print("gradient:", s2sad.grad(loss)(w, x, y))
    s2sad.check_grads(loss, (w, x, y), order=1, wrt=0)
    print("the custom rule agrees with finite differences (reverse and forward mode)")
    print("d/dx x * quantize(x) at 0.33:", s2sad.grad(scaled)(0.33), "(quantize is constant)")


if __name__ == "__main__":
    main()
