"""Several derivatives from one function: the s2sad way to TensorFlow's persistent tape.

TensorFlow records one tape and asks it twice::

    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        z = y * y
    dz_dx = t.gradient(z, x)  # 108.0 (4 x^3 at x = 3)
    dy_dx = t.gradient(y, x)  # 6.0

With s2sad there is no tape: write a function that returns both values, and
``s2sad.vjp`` compiles one adjoint whose seed (the sensitivity of the outputs) is
an argument. Seeding ``(1, 0)`` gives dz/dx, ``(0, 1)`` gives dy/dx; the Jacobian
gives both at once. ``has_aux`` returns a value alongside a gradient untouched.

Run: ``python -m examples.several_outputs``
"""

import numpy as np

import s2sad


def square_twice(x):
    y = x * x
    z = y * y
    return z, y


def loss_and_prediction(w, x, target):
    prediction = np.tanh(x @ w)
    return np.mean((prediction - target) ** 2), prediction


def main():
    (z, y), pullback = s2sad.vjp(square_twice)(3.0)
    dz_dx = pullback((1.0, 0.0))
    dy_dx = pullback((0.0, 1.0))
    print(f"z = {z}, y = {y}, dz/dx = {dz_dx}, dy/dx = {dy_dx}")
    print("both at once, the Jacobian:", s2sad.jacobian(square_twice)(3.0))
    print("the generated adjoint, seeded by its last argument:")
    print(s2sad.vjp(square_twice).source_for(3.0))

    rng = np.random.default_rng(0)
    w, x, target = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)
    gradient, prediction = s2sad.grad(loss_and_prediction, has_aux=True)(w, x, target)
    print("gradient:", gradient, "\nprediction (aux):", prediction)


if __name__ == "__main__":
    main()
