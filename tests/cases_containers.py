"""Functions of dicts and nested lists and tuples (tests/test_containers.py)."""

from collections import namedtuple
from typing import NamedTuple

import numpy as np

import s2sad


def dict_of_floats(p):
    return p["w"] ** 2 * p["b"]


def dict_of_arrays(p, x):
    h = np.tanh(x @ p["W1"] + p["b1"])
    out = h @ p["W2"] + p["b2"]
    return np.sum(out ** 2)


def nested_dicts(p):
    return np.sum(p["enc"]["W"] ** 2) * p["enc"]["s"] + p["dec"]["s"] ** 3


def layers_as_pairs(params, x):
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


def list_of_lists(x):
    return x[0][1] * x[1][0] + x[0][0] * x[0][1]


def tuple_of_list_and_float(x):
    a = x[0]
    return a[0] * a[1] + x[1] ** 2


def loop_over_dict(p):
    total = 0.0
    for k in p:
        total = total + np.sum(p[k] ** 2) * len(k)
    return total


def loop_over_keys(p):
    total = 0.0
    for k in p.keys():
        total = total + np.sum(np.sin(p[k]))
    return total


def loop_over_values(p):
    total = 0.0
    for v in p.values():
        total = total + np.sum(v ** 3)
    return total


def loop_over_items(p):
    total = 0.0
    for k, v in p.items():
        total = total + np.sum(v ** 2) * len(k)
    return total


def sum_of_values(p):
    return sum(np.sum(v * v) for v in p.values())


def enumerate_dict(p):
    total = 0.0
    for i, k in enumerate(p):
        total = total + (i + 1.0) * np.sum(p[k])
    return total


def get_with_default(p):
    return p.get("a") * 2.0 + p.get("missing", 0.5) * p["b"]


def dict_display(x, y):
    d = {"a": x, "b": y * 2.0}
    return d["a"] * d["b"]


def dict_display_loop(x, y):
    d = {"a": x, "b": y * 2.0}
    total = 0.0
    for k in d:
        total = total + d[k] ** 2
    return total


def key_added(x, y):
    d = {"a": x, "b": y * 2.0}
    d["c"] = x * y
    return d["a"] * d["b"] + d["c"] ** 2


def key_overwritten(x, y):
    d = {"a": x, "b": y}
    d["a"] = d["a"] * d["b"]
    d["a"] = d["a"] * x
    return d["a"] + d["b"]


def key_written_twice(x, y):
    d = {"a": x, "a": y}  # noqa: F601 (the last value is the dict's)
    return d["a"] * 3.0


def integer_keys(x, y):
    d = {0: x, 1: y}
    total = 0.0
    for k in d:
        total = total + d[k] * (k + 1.0)
    return total


def dict_through_helper(p, x):
    return _loss(_scaled(p, 2.0), x)


def _scaled(p, c):
    return {"W": p["W"] * c, "b": p["b"]}


def _loss(p, x):
    return np.sum(np.tanh(x @ p["W"] + p["b"]) ** 2)



def functional_update(p, x):
    q = {**p, "W": p["W"] * 0.5}
    r = {"extra": x, **q}
    return np.sum(np.tanh(x @ r["W"] + r["b"]) ** 2) + np.sum(r["extra"])


def update_in_a_loop(p):
    for _ in range(3):
        p = {**p, "w": p["w"] * p["b"]}
    return p["w"] + p["b"] ** 2


def list_holding_argument(x):
    ys = [x, 1.0]
    ys[1] = x * 2.0
    return ys[0] + ys[1]


def dict_holding_argument(x):
    d = {"x": x}
    d["y"] = x * x
    return np.sum(d["x"] + d["y"])


def dict_output(x):
    return {"a": x * 2.0, "b": np.sin(x)}


def parts_of_a_list(x, n):
    parts = [x * (i + 1.0) for i in range(n)]
    return np.sum(parts[1] * parts[-1]) + np.sum(np.concatenate(parts))


Params = namedtuple("Params", "W b")


class Layer(NamedTuple):
    W: np.ndarray
    b: np.ndarray


def namedtuple_fields(p, x):
    return np.sum(np.tanh(x @ p.W + p.b) ** 2)


def namedtuple_unpacked(p, x):
    W, b = p
    return np.sum(np.tanh(x @ W + b) ** 2) + np.sum(p[1])


def namedtuple_layers(layers, x):
    h = x
    for layer in layers:
        h = np.tanh(h @ layer.W + layer.b)
    return np.sum(h ** 2)


def two_dict_arguments(p, q):
    return q["a"] * q["b"] + np.sum(p["enc"]["W"] ** 2) * p["s"]


# --- a whole list, tuple or namedtuple read in a loop or a branch: its sensitivity adds
# up over the passes (it once kept the last pass's alone) and is zeros where nothing
# reaches it (it was once never set: an UnboundLocalError)

def whole_list_in_a_loop(xs):
    s = 0.0
    for i in range(3):
        s = s + np.sum(xs) * (i + 1.0)
    return s


def whole_list_in_a_while_loop(xs):
    s, i = 0.0, 0
    while i < 3:
        s = s + np.sum(np.stack(xs) ** 2)
        i += 1
    return s


def whole_list_in_a_branch(xs, flag):
    if flag > 0.0:
        return 1.0
    return np.sum(xs) * 3.0


def namedtuple_in_nested_loops(p, x):
    s = 0.0
    for j in range(2):
        for i in range(2):
            s = s + np.sum(np.tanh(x @ p.W + p.b)) * (i + j + 1.0)
    return s


def dict_copy_updated(p, x):
    q = dict(p)  # a new dict: its items may be set, p keeps its own
    q["W"] = q["W"] * 2.0
    return np.sum(np.tanh(x @ q["W"] + p["b"])) + np.sum(p["W"])


def dict_copy_method(p, x):
    q = p.copy()  # (was np.copy(p): a 0-d array of the dict, an IndexError at q["W"])
    q["W"] = q["W"] * 2.0
    return np.sum(np.tanh(x @ q["W"] + p["b"])) + np.sum(p["W"] * q["b"])


def dict_display_copied(x, y):
    d = {"a": x, "b": y * y}
    e = d.copy()
    e["a"] = 3.0 * x * y
    return d["a"] * e["a"] + e["b"]


def list_copy_method(x, y):
    ys = [x, y * 2.0]
    zs = ys.copy()
    zs[0] = zs[0] * 3.0
    return ys[0] * zs[0] + zs[1] * ys[1]


def dict_copy_with_keywords(p, x):
    q = dict(p, b=p["b"] * 3.0)
    return np.sum(np.tanh(x @ q["W"] + q["b"]))


# --- a namedtuple built inside: of its fields, read by field --------------------------------


class Scaled(NamedTuple):
    W: np.ndarray
    b: np.ndarray
    gain: float = 2.0


def namedtuple_built(W, x):
    p = Params(W * 0.5, b=np.sum(W, axis=0))
    q = Scaled(p.W, p.b)  # (gain: the class's default)
    return np.sum(np.tanh(x @ q.W + q.b) ** 2) * q.gain + np.sum(p[0] * q[1])


def namedtuple_wrong_field(W, x):
    p = Params(W, bias=x)
    return np.sum(p.W)


def namedtuple_missing_field(W):
    return np.sum(Params(W).W)


grad_namedtuple_fields = s2sad.grad(namedtuple_fields)
grad_two_dicts = s2sad.grad(two_dict_arguments)


def inner_step_of_a_namedtuple(p, x):
    # MAML's inner step on a namedtuple of parameters: the gradient called inside is the
    # one for a namedtuple (its fields read by position), then the loss at the new point
    g = grad_namedtuple_fields(p, x)
    moved = Params(p.W - 0.1 * g.W, p.b - 0.1 * g.b)
    return namedtuple_fields(moved, x)


def inner_step_of_a_dict(p, q):
    g = grad_two_dicts(p, q)
    moved = {"enc": {"W": p["enc"]["W"] - 0.1 * g["enc"]["W"]}, "s": p["s"] - 0.1 * g["s"]}
    return two_dict_arguments(moved, q)


class Doubling(Params):
    """A namedtuple's subclass whose __new__ changes the values: not built of its fields."""

    def __new__(cls, W, b):
        return super().__new__(cls, 2.0 * W, b)


def subclass_built(W, x):
    p = Doubling(W, x)
    return np.sum(p.W ** 2)


def namedtuple_rebuilt_in_a_loop(W, b):
    p = Params(W, b)
    for _ in range(3):
        p = Params(np.sin(p.W) * p.b, p.b * 1.1)
    return np.sum(p.W) + p.b


def sum_of_squares(p):
    return p[0] ** 2 + p[1] ** 3


grad_sum_of_squares = s2sad.grad(sum_of_squares)


def inner_step_of_a_list_of_floats(p):
    g = grad_sum_of_squares(p)
    return sum_of_squares([p[0] - 0.1 * g[0], p[1] - 0.1 * g[1]])


def writes_through_a_dict_copy(p):
    q = p.copy()
    w = q["w"]
    w[0] = 0.0
    return np.sum(p["w"]) * p["b"]
