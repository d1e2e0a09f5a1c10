"""Functions s2sad must refuse, each with a located error (used by test_errors.py)."""
import numpy as np

from tests.helpers_other_module import (adds_in_place, doubled, no_rule, scaled, shifted_root,
                                        tiled)


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
    z = y[1:]
    y[1] = 1.0
    return np.sum(z * x[1:])


def uses_lambda(x):
    y = (lambda v: v * 2.0)(x)
    return y


def uses_unknown_call(x):
    y = np.unwrap(x)
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


def calls_adds_in_place(x):
    y = x * 2.0
    return np.sum(adds_in_place(y) + y)


def calls_shifted_root(x):
    return np.sum(shifted_root(x))


def calls_tiled(x):
    return tiled(x) * 2.0


def calls_scaled(x):
    y = x * 3.0
    return scaled(y)


def nested_without_rule(x):
    def inner(v):
        return np.frexp(v)[0]
    return np.sum(inner(x))


def lambda_without_rule(x):
    f = lambda v: np.frexp(v)[0]  # noqa: E731
    return np.sum(f(x))


def changes_its_layers(model, x):
    layers = model.layers
    layers.append(layers[0])
    return np.sum(model.layers[-1](x))


def sets_an_attribute(model, x):
    setattr(model, "scale", x)
    return np.sum(model.layers[0](x))


def calls_doubled(x, d):
    return np.sum(doubled(d)) + np.sum(x)


def setattr_aliased(model, x):
    put = setattr
    put(model, "scale", x)
    return np.sum(model.layers[0](x))


def object_setattr(model, x):
    object.__setattr__(model, "scale", x)
    return np.sum(model.layers[0](x))


def through_vars(model, x):
    vars(model)["scale"] = x
    return np.sum(model.layers[0](x))


def tuple_alias_changed(model, x):
    ls, k = model.layers, 2.0
    ls.append(ls[0])
    return np.sum(model.layers[-1](x)) * k


def changed_in_a_test(model, x):
    if model.layers.append(model.layers[0]) is None:
        x = x * 2.0
    return np.sum(model.layers[-1](x))


def given_to_list_append(model, x):
    list.append(model.layers, model.layers[0])
    return np.sum(model.layers[-1](x))


def in_a_display(model, x):
    for ls in [model.layers]:
        ls.append(ls[0])
    return np.sum(model.layers[-1](x))


def _two_arguments(a, b):
    return a * b


def calls_with_too_many(x):
    return np.sum(_two_arguments(x, x, x))


def negative_base_power(a):
    b = a - 2.0
    return b ** 1.5 + a  # <- power


def _root(t):
    return pow(t, 0.5)  # <- power


def negative_base_power_in_helper(a):
    return _root(a - 2.0) * a


def negative_constant_to_a_power(a):
    return (-2.0) ** a * a  # <- power


def power_of_numpy_values(x):
    return np.sum(np.abs(x - 2.0) ** 0.5) + np.float64(x[0] - 2.0) ** 2.0


def sum_of_squares(x):
    return np.sum(x ** 2)  # <- its gradient is a vector


def misspelled_attribute(x):
    return np.sum(x.not_an_attribute * 2)


def misspelled_attribute_of_a_result(x):
    y = np.sin(x)
    return np.sum(y.not_an_attribute)


def misspelled_method(x):
    y = np.sin(x)
    return np.sum(y.tranpose())
