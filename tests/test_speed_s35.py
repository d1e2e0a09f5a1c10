"""Session 35's build speed: passes skipped where their own precondition is absent.

view_writes, object_lists, deep_copies and piecewise each make no copy of the function
and run no writer where nothing in it is theirs to write; where something is, each still
runs, and its gradient matches central differences.
"""

import copy
from copy import deepcopy as dc

import numpy as np
import pytest

import s2sad
from s2sad.transforms.deep_copies import DeepCopies
from s2sad.transforms.object_lists import ObjectLists
from s2sad.transforms.piecewise import Piecewise
from s2sad.transforms.view_writes import ViewWrites
from tests.test_speed_s34 import _reference_walk

WRITERS = (ViewWrites, ObjectLists, DeepCopies, Piecewise)


def _runs(monkeypatch, f, *args) -> tuple:
    """The writers a build of ``f``'s gradient runs, and the gradient at ``args``."""
    ran = []
    for cls in WRITERS:
        def counted(self, tree, run=cls.run, name=cls.__name__):
            ran.append(name)
            return run(self, tree)
        monkeypatch.setattr(cls, "run", counted)
    return ran, s2sad.grad(f)(*args)


def _central(f, x, h=1e-6) -> np.ndarray:
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


def test_none_of_them_run_on_plain_code(monkeypatch):
    def f(x):
        y = np.sin(x) * x
        z = y[0] + y[1:]  # (an index of an argument: no copy to write)
        return np.sum(z * z)

    x = np.linspace(0.1, 0.9, 3)
    ran, g = _runs(monkeypatch, f, x)
    assert ran == []  # (before: all four ran, three on a copy of the whole function)
    np.testing.assert_allclose(g, _central(f, x), rtol=1e-6, atol=1e-8)


def view_read(x):  # (a view of an array made here, only read: its reads are written out)
    y = np.zeros(3)
    v = y[1:]
    y[1] = x[0] * x[1]
    return np.sum(v * x[1:])


def view_write(x):
    y = np.zeros(3)
    v = y[1:]
    v[0] = x[0] ** 2
    return np.sum(y * x)


def mask_copy(x):  # (an index of an array argument by a mask: a copy, written .copy())
    v = x[x > 0.5]
    v[0] = 0.0
    return np.sum(v * x[2])


def chained(x):
    a = np.zeros((2, 2))
    a[1][0] = x[0] * x[2]
    return np.sum(a * x[1])


def objects(x):
    layers = [Layer(w) for w in (0.5, 2.0)]
    for layer in layers:
        x = layer(x)
    return np.sum(x)


def deep_copied(x):
    d = {"a": x * 1.0, "b": x[0]}
    e = dc(d)  # (deepcopy under another name)
    e["a"] *= 2.0
    return np.sum(d["a"] * e["a"]) + e["b"]


def deep_copied_module(x):
    d = [x * 2.0, x[0]]
    e = copy.deepcopy(d)
    return np.sum(e[0] * d[0]) * e[1]


def piecewise(x):
    return np.sum(np.piecewise(x, [x < 0.5], [lambda v: v * v, np.sin]))


@pytest.mark.parametrize("f, writer", [
    (view_read, "ViewWrites"), (view_write, "ViewWrites"), (mask_copy, "ViewWrites"),
    (chained, "ViewWrites"), (objects, "ObjectLists"), (deep_copied, "DeepCopies"),
    (deep_copied_module, "DeepCopies"), (piecewise, "Piecewise")],
    ids=lambda v: v if isinstance(v, str) else v.__name__)
def test_each_still_runs_where_it_acts(monkeypatch, f, writer):
    x = np.array([0.3, 0.7, 1.1])
    ran, g = _runs(monkeypatch, f, x)
    assert writer in ran
    np.testing.assert_allclose(g, _central(f, x), rtol=1e-6, atol=1e-8)


def test_a_chained_write_on_no_array_made_here_is_still_refused(monkeypatch):
    def f(x, ws):
        ws[0][1] = x
        return x * ws[0][1]

    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="nested element"):
        s2sad.grad(f)(1.0, [[1.0, 2.0]])


WALKED = '''
def f(x: np.ndarray, *args, k=1.0, **kw) -> float:
    a, (b, c) = x[0], (x[1:], [x[-1], 2])
    d = np.sum(x * 2.0 + -x, axis=0, keepdims=True) if a < b <= c else None
    e = a and b or not c
    a += d @ x
    assert e is not None, "e"
    for i in range(3):
        if i in (1, 2) and x[i:i + 1:None].shape:
            continue
        else:
            break
    while e:
        e = [v * 2 for v in x if v > 0] + list({k: v for k, v in kw.items()})
    try:
        g = lambda y=a: y ** 2
    except (ValueError, TypeError) as err:
        raise RuntimeError() from err
    finally:
        del a
    with open("p") as h:
        yield f"{e!r:>{k}}"
    return
'''


def test_walk_gives_every_node_in_python_order():
    import gast

    from s2sad import trees
    tree = gast.parse(WALKED)
    assert [id(n) for n in trees.walk(tree)] == [id(n) for n in _reference_walk(tree)]
    for node in _reference_walk(tree):  # (each node's own walk too: a statement or expression)
        assert [id(n) for n in trees.walk(node)] == [id(n) for n in _reference_walk(node)]


def test_walk_of_nodes_made_without_some_fields():
    import gast

    from s2sad import trees
    x = gast.Name("x", gast.Load())  # (no annotation field)
    call = gast.Call(gast.Name("f", gast.Load(), None, None), [x])  # (no keywords)
    node = gast.Assign(targets=[gast.Name("y", gast.Store(), None, None)])  # (no value)
    top = gast.Expr(gast.BinOp(call, gast.Add(), gast.Attribute(x, "T", gast.Load())))
    assert trees.walk(top) == [top, top.value, call, top.value.right, call.func, x, x]
    assert trees.walk(node) == [node, node.targets[0]]
