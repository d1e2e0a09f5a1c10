"""Random models that keep state (tests/modelgen.py), differentiated with respect to the
model and to the input: every gradient against central differences, and the side effects
(counters, caches) against what one plain call leaves."""

import copy
import importlib.util
import sys

import numpy as np
import pytest

import s2sad
import modelgen
from test_higher_order import central_differences

SEEDS = range(24)
X0 = np.random.default_rng(9).normal(size=(4, 3))


def _load(seed, tmp_path):
    program = modelgen.program(seed)
    path = tmp_path / f"model_{seed}.py"
    path.write_text(program.source)
    spec = importlib.util.spec_from_file_location(f"model_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return program, module


def _frozen(obj):
    return {n for k in type(obj).__mro__ for n in vars(k).get("__s2sad_frozen__", ())}


def _leaves(value, path=(), seen=None):
    """(path, leaf) of each parameter, once each (a layer held twice: its first path),
    frozen attributes left out."""
    seen = set() if seen is None else seen
    if isinstance(value, float) or isinstance(value, np.ndarray) and value.dtype.kind == "f":
        yield path, value
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves(item, path + (i,), seen)
    elif isinstance(value, dict):
        for k, item in value.items():
            yield from _leaves(item, path + (k,), seen)
    elif hasattr(value, "__dict__") and id(value) not in seen:
        seen.add(id(value))
        for k, item in vars(value).items():
            if k not in _frozen(value):
                yield from _leaves(item, path + (k,), seen)


def _get(value, path):
    for part in path:
        value = value[part] if isinstance(value, (list, tuple, dict)) else getattr(value, part)
    return value


def _moved(model, path, leaf):
    """A deep copy of ``model`` with the parameter at ``path`` replaced."""
    model = copy.deepcopy(model)
    holder = _get(model, path[:-1])
    if isinstance(holder, (list, dict)):
        holder[path[-1]] = leaf
    else:
        setattr(holder, path[-1], leaf)
    return model


def _state(value, seen=None):
    """The counters and cache lengths ``value`` and what it holds keep."""
    seen = set() if seen is None else seen
    if isinstance(value, (list, tuple)):
        return [_state(v, seen) for v in value]
    if isinstance(value, dict):
        return {k: _state(v, seen) for k, v in value.items()}
    if not hasattr(value, "__dict__") or id(value) in seen:
        return None
    seen.add(id(value))
    out = {}
    for k, v in vars(value).items():
        if k == "n_calls":
            out[k] = v
        elif k == "cache":
            out[k] = [np.array(c) for c in v]
        elif k in ("layers", "inner"):
            out[k] = _state(v, seen)
    return out


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("seed", SEEDS)
def test_random_model(seed, tmp_path):
    program, module = _load(seed, tmp_path)
    loss = module.loss
    for calls in (0, 2):  # (fresh counters, and counters past a branch's threshold)
        model = module.make(seed)
        for _ in range(calls):
            model(X0)
        before = copy.deepcopy(model)
        g = s2sad.grad(loss, wrt="model")(model, X0)
        plain = copy.deepcopy(before)
        plain(X0)
        assert _same(_state(model), _state(plain)), program.source
        for path, leaf in _leaves(before):
            expected = central_differences(
                lambda x, path=path, leaf=leaf: loss(_moved(
                    before, path, float(x) if isinstance(leaf, float) else x), X0),
                [np.asarray(leaf, dtype=float)], 0)
            np.testing.assert_allclose(_get(g, path), expected, rtol=1e-6, atol=1e-8,
                                       err_msg=f"{path}\n{program.source}")
        model = copy.deepcopy(before)
        gx = s2sad.grad(loss, wrt="X")(model, X0)
        expected = central_differences(lambda X: loss(copy.deepcopy(before), X), [X0], 0)
        np.testing.assert_allclose(gx, expected, rtol=1e-6, atol=1e-8, err_msg=program.source)
        assert _same(_state(model), _state(plain)), program.source


def test_the_seeds_cover_each_feature():
    seen = set().union(*(modelgen.program(seed).features for seed in SEEDS))
    wanted = {"dense", "activation", "residual", "container-list", "container-tuple",
              "loop-for", "loop-enumerate", "loop-zip_reversed", "loop-enumerate_reversed",
              "counter", "counter-read", "counter-branch", "cache", "frozen", "dict-params",
              "held-twice", "container-dict", "loop-keys-written", "loop-items",
              "loop-values"}
    assert wanted <= seen, sorted(wanted - seen)
