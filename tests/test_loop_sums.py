"""A reverse loop's weight sensitivities added up after the loop (transforms/loop_sums.py,
runtime/terms.py): the same gradients as pass by pass, checked against a hand-written
backpropagation through time and central finite differences; loops that may change an
array in place left alone; the memory the collectors hold bounded."""

import gast
import numpy as np
import pytest

import s2sad
from s2sad.runtime import terms as runtime_terms
from s2sad.codegen import unparse
from s2sad.transforms.loop_sums import LoopSums
from tests.test_control_flow import numeric_gradient


def _named(helper) -> str:
    """The generated name of a helper, here its own (``ProductSum``)."""
    return helper.__name__


rng = np.random.default_rng(11)


def rnn(Wx, Wh, b, xs, h0):
    h = h0
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.sum(h * h)


def rnn_hand(Wx, Wh, b, xs, h0):
    hs = [h0]
    for t in range(len(xs)):
        hs.append(np.tanh(xs[t] @ Wx + hs[-1] @ Wh + b))
    dh = 2.0 * hs[-1]
    dWx, dWh, db = np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)
    for t in range(len(xs) - 1, -1, -1):
        da = dh * (1.0 - hs[t + 1] ** 2)
        dWx += xs[t].T @ da
        dWh += hs[t].T @ da
        db += np.sum(da, axis=0) if b.ndim == 1 else np.sum(da, axis=0, keepdims=True)
        dh = da @ Wh.T
    return dWx, dWh, db


def _rnn_args(steps, batch=4, n_in=3, hidden=5, bias=(5,), dtype=np.float64):
    return (rng.standard_normal((n_in, hidden)).astype(dtype) / 2,
            rng.standard_normal((hidden, hidden)).astype(dtype) / 3,
            0.1 * rng.standard_normal(bias).astype(dtype),
            rng.standard_normal((steps, batch, n_in)).astype(dtype),
            0.1 * rng.standard_normal((batch, hidden)).astype(dtype))


@pytest.mark.parametrize("steps", [1, 2, 7, 2 * runtime_terms.WAITING + 3])
def test_an_rnn_gradient_adds_its_weight_terms_after_the_loop(steps):
    args = _rnn_args(steps)
    g = s2sad.grad(rnn, wrt=(0, 1, 2))
    ours = g(*args)
    source = g.source_for(*args)
    assert "s_Wh_terms = ProductSum()" in source and "s_Wh += s_Wh_terms.total()" in \
        source, source
    # (the kinds decide the bias's sum, an array's row of every step kept its axes'
    # lengths: one sum a step, no unbroadcast left to gather)
    assert "s_b += s_5.sum(axis=0)" in source and "unbroadcast" not in source, source
    for mine, hand in zip(ours, rnn_hand(*args)):
        np.testing.assert_allclose(mine, hand, rtol=1e-12, atol=1e-14)
    if steps <= 7:
        for index, mine in enumerate(ours):
            np.testing.assert_allclose(mine, numeric_gradient(rnn, args, index),
                                       rtol=1e-6, atol=1e-8)


def test_a_loop_that_never_runs_adds_nothing():
    args = _rnn_args(0)
    ours = s2sad.grad(rnn, wrt=(0, 1, 2))(*args)
    for mine, like in zip(ours, args):
        assert mine.shape == like.shape and not mine.any()


def test_a_bias_with_a_row_axis_and_single_precision():
    args = _rnn_args(9, bias=(1, 5), dtype=np.float32)
    ours = s2sad.grad(rnn, wrt=(0, 1, 2))(*args)
    hand = rnn_hand(*[a.astype(np.float64) for a in args])
    for mine, exact, like in zip(ours, hand, args):
        assert mine.dtype == np.float32 and mine.shape == like.shape
        np.testing.assert_allclose(mine, exact, rtol=2e-4, atol=1e-5)


def batches(W, b, xs):
    total = 0.0
    for x in xs:  # a list of arrays of different row counts
        total = total + np.sum(np.tanh(x @ W + b) ** 2)
    return total


def test_terms_whose_rows_change_from_pass_to_pass():
    W, b = rng.standard_normal((3, 4)), rng.standard_normal(4)
    xs = [rng.standard_normal((rows, 3)) for rows in (1, 5, 2, 8, 3)]
    g = s2sad.grad(batches, wrt=(0, 1))
    dW, db = g(W, b, xs)
    assert "Sum()" in g.source_for(W, b, xs)
    np.testing.assert_allclose(dW, numeric_gradient(batches, (W, b, xs), 0), rtol=1e-6)
    np.testing.assert_allclose(db, numeric_gradient(batches, (W, b, xs), 1), rtol=1e-6)


def grow(W, h):
    steps = 0
    while np.sum(h * h) < 40.0 and steps < 50:
        h = h + 0.5 * np.tanh(h @ W)
        steps += 1
    return np.sum(h)


def test_the_reverse_loop_of_a_while_loop():
    W, h = rng.standard_normal((4, 4)) / 2, np.abs(rng.standard_normal((3, 4)))
    g = s2sad.grad(grow)
    source = g.source_for(W, h)
    assert "ProductSum()" in source and "for h in reversed(h_saved):" in source, source
    np.testing.assert_allclose(g(W, h), numeric_gradient(grow, (W, h), 0), rtol=1e-6)


def small_rnn(Wh, xs):
    h = xs[0]
    for t in range(1, len(xs)):
        h = np.tanh(xs[t] + h @ Wh)
    return np.sum(h * h)


def test_derivatives_of_the_gradient_read_it_pass_by_pass():
    """A Hessian differentiates the generated gradient: it gets the version whose loop adds
    its terms itself (a collector's add is no derivative rule)."""
    Wh, xs = rng.standard_normal((3, 3)) / 2, rng.standard_normal((5, 2, 3))
    g = s2sad.grad(small_rnn)
    assert "ProductSum()" in g.source_for(Wh, xs)
    H = s2sad.hessian(small_rnn)(Wh, xs)
    eps = 1e-6
    numeric = np.zeros((3, 3, 3, 3))
    for k in np.ndindex(3, 3):
        up, down = Wh.copy(), Wh.copy()
        up[k] += eps
        down[k] -= eps
        numeric[(Ellipsis,) + k] = (g(up, xs) - g(down, xs)) / (2 * eps)
    np.testing.assert_allclose(H, numeric, rtol=1e-5, atol=1e-7)


def test_the_memory_the_collectors_hold_is_bounded():
    """A long loop of small arrays: the collectors hold at most WAITING terms each, so the
    gradient's memory stays about the hand-written one's (its tape of hidden states),
    not twice or three times it."""
    from benchmarks.timing import peak_memory
    args = _rnn_args(400, batch=8, n_in=4, hidden=16, bias=(16,))
    g = s2sad.grad(rnn, wrt=(0, 1, 2))
    g(*args)
    ours = peak_memory(lambda: g(*args))
    theirs = peak_memory(lambda: rnn_hand(*args))
    assert ours < 1.4 * theirs, (ours, theirs)


# --- the pass itself: where it must leave a loop alone ---------------------------------------

_LOOP = '''def grad_f(W, b, hs, n):
    s_W, s_b, s_h = [0.0] * 3
    for t in range(n):
        h = np.tanh(h @ W + b)
    for t in reversed(range(n)):
        h = h_saved[t]
        s_5 = s_h * (1.0 - h ** 2)
        {extra}
        s_W += h.T @ s_5
        s_b += unbroadcast(s_5, b)
        s_h = s_5 @ W.T
    return s_W, s_b'''


def _transform(extra):
    fn = gast.parse(_LOOP.format(extra=extra)).body[0]
    sums = LoopSums({"unbroadcast"}, {"unbroadcast", "shape_of"}, "np", set(), _named, str)
    return sums, unparse(sums.visit(fn))


@pytest.mark.parametrize("extra", [
    "h[0] = 0.0",                 # an item stored: an array changed in place
    "h.shape = (2, 2)",           # an attribute stored
    "other(h)",                   # a call that may change its argument
    "np.multiply(h, 2.0, out=h)",  # NumPy writing in place
    "np.multiply(h, 2.0, h)",     # (its output array after its inputs)
    "np.tanh(s_5, s_5)",
    "h.sort()",                   # a method
    "s_h += s_5",                 # `+=` on a name the loop reads: in place, for an array
    "s_h = s_h + s_W",            # a sum the loop reads
    "s_5 = s_5 + s_b",            # (a term made of it)
])
def test_a_loop_that_may_change_an_array_in_place_is_left_alone(extra):
    sums, text = _transform(extra)
    assert not sums.changed and "terms" not in text, text


def test_only_the_sums_of_a_known_form_wait():
    sums, text = _transform("s_h = s_5 @ W.T")
    assert sums.changed and "s_W_terms.add(h, s_5)" in text and \
        "s_b_terms.add(s_5, b)" in text, text
    fn = gast.parse(_LOOP.format(extra="pass").replace("h.T @ s_5", "h @ s_5")).body[0]
    text = unparse(LoopSums({"unbroadcast"}, {"unbroadcast"}, "np", set(), _named, str).visit(fn))
    assert "s_W += h @ s_5" in text and "s_b_terms.add(s_5, b)" in text, text


def test_only_sums_are_collected():
    """A product of a sum is not the sum of products: ``*=`` keeps its running value."""
    fn = gast.parse(_LOOP.format(extra="pass").replace("s_W += h.T", "s_W *= h.T")).body[0]
    text = unparse(LoopSums({"unbroadcast"}, {"unbroadcast"}, "np", set(), _named, str).visit(fn))
    assert "s_W *= h.T @ s_5" in text and "s_b_terms.add(s_5, b)" in text, text
    fn = gast.parse(_LOOP.format(extra="pass").replace("s_W += h.T", "s_W -= h.T")).body[0]
    text = unparse(LoopSums({"unbroadcast"}, {"unbroadcast"}, "np", set(), _named, str).visit(fn))
    assert "s_W_terms.add(h, s_5)" in text and "s_W -= s_W_terms.total()" in text, text


def test_a_forward_loop_is_left_alone():
    fn = gast.parse('''def f(W, hs, n):
    acc = 0.0
    for t in range(n):
        acc += hs[t].T @ W
    return acc''').body[0]
    sums = LoopSums({"unbroadcast"}, set(), "np", set(), _named, str)
    sums.visit(fn)
    assert not sums.changed


# --- random loops: with the collectors, the unoptimized gradient's values -----------------------

_TEMPLATE = '''import numpy as np


def f(W, U, b, xs, h0):
    h = h0
{loop}
    return np.sum({out})
'''
_LOOPS = {
    "range": "    for t in range(len(xs)):\n        h = {act}(xs[t] @ W {op} h @ U + b)",
    "items": "    for x in xs:\n        h = {act}(x @ W {op} h @ U + b)",
    "while": "    n = 0\n    while n < len(xs):\n        h = {act}(xs[n] @ W {op} h @ U + b)\n"
             "        n += 1",
    "two layers": "    for t in range(len(xs)):\n        g = np.tanh(h @ U)\n"
                  "        h = {act}(xs[t] @ W {op} g @ U.T + b)",
}
_ACTIVATIONS = ["np.tanh", "np.sin", "0.5 * ", "1.0 / 3.0 + np.cos"]
_OUTPUTS = ["h * h", "np.cos(h)", "h[0] * h[-1]"]


def _load(text, tmp_path, name):
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


@pytest.mark.parametrize("loop", sorted(_LOOPS))
def test_random_loops_agree_with_the_unoptimized_gradient(loop, tmp_path):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=25, deadline=None, derandomize=True)
    @given(act=st.sampled_from(_ACTIVATIONS), op=st.sampled_from(["+", "-"]),
           out=st.sampled_from(_OUTPUTS), steps=st.sampled_from([0, 1, 3, 33, 40]),
           batch=st.integers(1, 4), bias=st.sampled_from(["vector", "row", "float", "full"]),
           seed=st.integers(0, 2 ** 16))
    def check(act, op, out, steps, batch, bias, seed):
        text = _TEMPLATE.format(loop=_LOOPS[loop].format(act=act, op=op), out=out)
        f = _load(text, tmp_path, f"loop_{abs(hash(text)) % 10 ** 8}")
        r = np.random.default_rng(seed)
        hidden, n_in = 3, 2
        b = {"vector": lambda: r.standard_normal(hidden),
             "row": lambda: r.standard_normal((1, hidden)),
             "float": lambda: float(r.standard_normal()),
             "full": lambda: r.standard_normal((batch, hidden))}[bias]()
        args = (r.standard_normal((n_in, hidden)) / 2, r.standard_normal((hidden, hidden)) / 3,
                b, r.standard_normal((steps, batch, n_in)), r.standard_normal((batch, hidden)))
        wrt = (0, 1, 2)
        fast = s2sad.grad(f, wrt=wrt)
        ours, plain = fast(*args), s2sad.grad(f, wrt=wrt, optimize=False)(*args)
        collected.append("Sum()" in fast.source_for(*args))
        for mine, want in zip(ours, plain, strict=True):
            assert np.shape(mine) == np.shape(want)
            np.testing.assert_allclose(mine, want, rtol=1e-10, atol=1e-12)

    collected: list = []
    check()
    assert any(collected), "no example's loop handed its terms to a collector"


# --- memory: only small terms wait, whatever came before them ---------------------------------

@pytest.mark.parametrize("collector", ["products", "sums"])
def test_a_big_term_after_a_small_one_does_not_wait(collector):
    """The reverse sweep of a ragged loop meets its short last batch first: the big terms
    after it are added at once, not kept (31 of them held 227 MiB before)."""
    import tracemalloc
    small = [rng.standard_normal((1, 16)) for _ in range(2)]
    big = [rng.standard_normal((4000, 16)) for _ in range(2 * runtime_terms.WAITING)]
    sink = runtime_terms.ProductSum() if collector == "products" else \
        runtime_terms.UnbroadcastSum()
    add = (lambda a: sink.add(a, a)) if collector == "products" else \
        (lambda a: sink.add(a, np.zeros(16)))
    one = big[0].nbytes
    tracemalloc.start()
    try:
        for a in small[:1] + big + small[1:]:
            add(np.array(a))  # (a fresh array, as each pass of a loop makes: only the
            # collector keeps it)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * one, (peak, one)
    terms = small + big
    want = sum(a.T @ a for a in terms) if collector == "products" else \
        sum(a.sum(axis=0) for a in terms)
    np.testing.assert_allclose(sink.total(), want, rtol=1e-10)
