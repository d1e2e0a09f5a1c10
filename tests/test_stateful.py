"""Models that keep state (issue 35): methods that set attributes carrying no gradient,
count their calls and append to caches run in the forward sweep, in order, once per
call of the gradient; a value with a derivative stored in an attribute and read again
is refused at the store. And scikit-learn-style ``loss_and_grad`` functions: a library
call s2sad has no rule for that feeds only the auxiliary output is called (checked when
it runs), while the same call feeding the loss is refused at its line. Gradients against
central differences (float64), forward mode against reverse, second order."""

import copy

import numpy as np
import pytest
import scipy.linalg.blas
import scipy.ndimage
import scipy.sparse

import s2sad
from s2sad.errors import DifferentiationError, NoDerivativeError, UnsupportedSyntaxError
from test_higher_order import central_differences

RNG = np.random.default_rng(35)
W0 = RNG.normal(size=(3, 3)) * 0.5
B0 = RNG.normal(size=3) * 0.1
X0 = RNG.normal(size=(4, 3))


# --- the user's classes -----------------------------------------------------------------------

class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b
        self.n_calls = 0
        self.cache = []
        self.X = []
        self.derived = {"Z": []}
        self.is_initialized = False
        self.steps = 0.0

    def __call__(self, X):
        self.n_calls += 1
        self.cache.append(X)
        return np.tanh(X @ self.W + self.b)

    def lazily(self, X):
        if not self.is_initialized:
            self.n_in = X.shape[1]
            self.is_initialized = True
        return np.tanh(X @ self.W[:self.n_in])

    def caching(self, X):
        self.X.append(X)
        Z = X @ self.W
        self.derived["Z"].append(Z)
        return np.sum(np.tanh(Z) ** 2)

    def counted_steps(self, X):
        for k in range(3):
            self.steps += 0.5
            X = np.sin(X) * (k + 1)
        return np.sum(X)


class Net:
    def __init__(self, layers):
        self.layers = layers
        self.seen = 0

    def forward(self, X):
        self.seen += 1
        for layer in self.layers:
            X = layer(X)
        return X


def _cd(g, x):
    """Central differences of ``g`` along each entry of ``x``."""
    return central_differences(g, [x], 0)


def _dense():
    return Dense(W0.copy(), B0.copy())


def _net():
    return Net([_dense(), _dense()])


# --- functions differentiated with respect to X, the object passed along ----------------------

def calls_layer(X, m):
    return np.sum(m(X) ** 2)


def initializes_once(X, m):
    return np.sum(m.lazily(X) ** 3)


def caches(X, m):
    return m.caching(X)


def counts_here(X, m):
    m.n_calls += 1
    return np.sum(np.sin(X) * X)


def counts_in_a_loop(X, m):
    return m.counted_steps(X)


def through_layers(X, net):
    return np.sum(net.forward(X))


def into_a_layers_cache(X, net):
    net.layers[0].cache.append(X)
    net.layers[1].n_calls += 2
    return np.sum(net.layers[1](X * 2.0))


def twice(X, m):
    return np.sum(m(m(X)))


def reads_a_count_again(X, m):
    m.n_calls += 1
    m.n_calls += 1
    return np.sum(X ** 2) * m.n_calls


def sets_a_flag_in_a_branch(X, m):
    if np.sum(X) > 0:
        m.is_initialized = True
    else:
        m.is_initialized = False
    scale = 2.0 if m.is_initialized else 3.0
    return np.sum(np.exp(X * 0.1)) * scale


def caches_in_a_loop_over_layers(X, net):
    for layer in net.layers:
        layer.cache.append(X)
        layer.n_calls += 1
        X = layer(X)
    return np.sum(X ** 2)


CASES = [
    (caches_in_a_loop_over_layers, _net),
    (calls_layer, _dense),
    (initializes_once, _dense),
    (caches, _dense),
    (counts_here, _dense),
    (counts_in_a_loop, _dense),
    (through_layers, _net),
    (into_a_layers_cache, _net),
    (twice, _dense),
    (reads_a_count_again, _dense),
    (sets_a_flag_in_a_branch, _dense),
]
IDS = [f.__name__ for f, _ in CASES]
# their output reads an attribute they change: each run is another function, so vjp, jvp,
# jacobian and hessian (which run it more than once) refuse them
READS_ITS_STATE = {initializes_once, reads_a_count_again, sets_a_flag_in_a_branch}


def _state(obj):
    """What a call leaves in ``obj`` (and the layers it holds): counters, flags, caches."""
    out = {}
    for key, value in vars(obj).items():
        if key == "layers":
            out[key] = [_state(layer) for layer in value]
        elif key not in ("W", "b"):
            out[key] = copy.deepcopy(value)
    return out


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


def _once(f, make, X):
    """The state one plain call of ``f`` leaves in a fresh object."""
    obj = make()
    f(X, obj)
    return _state(obj)


@pytest.mark.parametrize("f, make", CASES, ids=IDS)
def test_gradient_against_central_differences(f, make):
    obj = make()
    g = s2sad.grad(f)(X0, obj)
    expected = _cd(lambda x: f(x, make()), X0)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)
    # the side effects happened once, in order, with the forward values
    assert _same(_state(obj), _once(f, make, X0))


@pytest.mark.parametrize("f, make", CASES, ids=IDS)
def test_value_and_grad_runs_the_effects_once(f, make):
    obj = make()
    value, g = s2sad.value_and_grad(f)(X0, obj)
    assert value == pytest.approx(f(X0, make()))
    assert _same(_state(obj), _once(f, make, X0))
    s2sad.value_and_grad(f)(X0, obj)  # a second call: each effect once more
    once_more = make()
    f(X0, once_more)
    f(X0, once_more)
    assert _same(_state(obj), _state(once_more))


@pytest.mark.parametrize("f, make", CASES, ids=IDS)
def test_forward_mode_matches_reverse(f, make):
    direction = RNG.normal(size=X0.shape)
    if f in READS_ITS_STATE:
        with pytest.raises(DifferentiationError, match="reads an attribute it changes"):
            s2sad.jvp(f)(X0, make())
        return
    obj = make()
    value, push = s2sad.jvp(f)(X0, obj)
    assert _same(_state(obj), _once(f, make, X0))  # (the value: one run of f)
    tangent = push(direction)  # (a pushforward runs the sweep again, without the effects:
    assert _same(_state(obj), _once(f, make, X0))  # the call made them, session 28)
    after_one_run = make()  # (the pushforward reads the state the value's run left)
    f(X0, after_one_run)
    g = s2sad.grad(f)(X0, after_one_run)
    assert tangent == pytest.approx(np.sum(g * direction), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("f, make", CASES, ids=IDS)
def test_vjp_runs_the_effects_once_whatever_the_pullbacks(f, make):
    obj = make()
    if f in READS_ITS_STATE:
        with pytest.raises(DifferentiationError, match="run it once, or pass the state"):
            s2sad.vjp(f)(X0, obj)
        assert _same(_state(obj), _state(make()))  # (refused before it ran)
        return
    value, pull = s2sad.vjp(f)(X0, obj)
    assert _same(_state(obj), _once(f, make, X0))  # (the value: one run of f)
    after_one_run = make()
    f(X0, after_one_run)
    expected = s2sad.grad(f)(X0, after_one_run)
    np.testing.assert_allclose(pull(1.0), expected)
    np.testing.assert_allclose(pull(1.0), expected)
    # (the pullbacks run the sweep again, without the effects: the call made them)
    assert _same(_state(obj), _once(f, make, X0))


def layer_loss(x, m):
    return np.sum(np.tanh(m(x[None, :])) ** 2) + np.sum(x ** 4)


def test_hessian_runs_the_effects_once():
    x = X0[0]
    obj = _dense()
    h = s2sad.hessian(layer_loss)(x, obj)
    expected = _cd(lambda v: s2sad.grad(layer_loss)(v, _dense()), x)
    np.testing.assert_allclose(h, expected, rtol=1e-6, atol=1e-7)
    assert obj.n_calls == 1 and len(obj.cache) == 1  # (its columns: none again)
    obj = _dense()
    hv = s2sad.hvp(layer_loss)(x, obj, np.ones(3))
    np.testing.assert_allclose(hv, expected @ np.ones(3), rtol=1e-6, atol=1e-7)
    assert obj.n_calls == 1


def test_second_order_of_a_caching_method():
    obj = _dense()
    h = s2sad.hessian(caches)(X0[:2], obj)
    expected = _cd(lambda v: s2sad.grad(caches)(v, _dense()), X0[:2])
    np.testing.assert_allclose(h, expected, rtol=1e-6, atol=1e-7)
    assert len(obj.X) == len(obj.derived["Z"]) == 1  # (once per call, as caches does)


def test_a_cache_holds_the_forward_values():
    obj = _dense()
    s2sad.grad(caches)(X0, obj)
    assert obj.X[0] is X0
    np.testing.assert_allclose(obj.derived["Z"][0], X0 @ W0)


def test_a_flag_set_on_the_first_call_is_read_on_the_next():
    obj = _dense()
    g = s2sad.grad(initializes_once)
    first = g(X0, obj)
    assert obj.is_initialized and obj.n_in == 3
    np.testing.assert_allclose(g(X0, obj), first)


# --- a value read, then the attribute set: the gradient keeps the value read; the APIs that
# run the function more than once refuse it (each run reads another state) ---------------------

class Scale:
    def __init__(self):
        self.n, self.s, self.W = 1.0, 2.0, np.full(3, 2.0)


def read_then_set(x, m):
    old = m.n
    m.n = 10.0
    return np.sum(x * old)


def used_in_the_reverse_sweep(x, m):
    y = np.sum(np.sin(x) * m.s)
    m.s = 3.0
    return y


def array_replaced_after_use(x, m):
    y = np.sum(np.sin(x) * m.W)
    m.W = m.W * 0.0
    return y


def bumped_after_use(x, m):
    t = m.s
    m.s = t + 1.0
    return np.sum(x ** 2) * t


READ_THEN_SET = [read_then_set, used_in_the_reverse_sweep, array_replaced_after_use,
                 bumped_after_use]


@pytest.mark.parametrize("f", READ_THEN_SET, ids=[f.__name__ for f in READ_THEN_SET])
def test_a_value_read_before_the_attribute_is_set_is_the_one_differentiated(f):
    """grad and value_and_grad run it once: exact."""
    x = np.array([0.1, 0.2, 0.3])
    obj = Scale()
    g = s2sad.grad(f)(x, obj)
    np.testing.assert_allclose(g, _cd(lambda v: f(v, Scale()), x), rtol=1e-6, atol=1e-8)
    assert _same(dict(vars(obj)), _state_after(f, x))
    for maker in (s2sad.jvp, s2sad.vjp, s2sad.hessian, s2sad.jacobian):
        with pytest.raises(DifferentiationError, match="reads an attribute it changes"):
            maker(f)(x, Scale())


def _state_after(f, x):
    obj = Scale()
    f(x, obj)
    return {k: v for k, v in vars(obj).items()}


# --- refused at the user's line --------------------------------------------------------------

class Stores:
    def __init__(self):
        self.W = W0.copy()
        self.buf = np.zeros((4, 3))
        self.layer = _dense()
        self.act = None

    def stores_and_reads(self, x):
        self.h = x * 2
        return np.sum(self.h * 3)

    def sgd(self, g):
        self.W = self.W - 0.1 * g
        return np.sum(self.W ** 2)

    def in_place(self, x):
        self.buf[:] = x
        return np.sum(self.buf ** 2)

    def adds_in_place(self, x):
        self.W += 1.0
        return np.sum(x @ self.W)

    def replaces_a_layer(self, x):
        self.layer = Dense(W0, B0)
        return np.sum(x)

    def keeps_a_function(self, x):
        self.h = np.tanh
        return np.sum(x)


def stores_and_reads(x, m):
    return m.stores_and_reads(x)


def sgd(x, m):
    return m.sgd(x)


def loops_on_an_attribute(x, m):
    m.h = x
    for _ in range(3):
        m.h = np.sin(m.h)
    return np.sum(m.h)


def reads_through_getattr(x, m):
    m.h = x * 2
    return np.sum(getattr(m, "h"))


def appends_and_reads(x, m):
    m.X.append(x * 2)
    return np.sum(m.X[-1])


def in_place(x, m):
    return m.in_place(x)


def replaces_a_layer(x, m):
    return m.replaces_a_layer(x)


def keeps_a_function(x, m):
    return m.keeps_a_function(x)


def sets_a_local_arrays_shape(x, m):
    y = np.zeros(2)
    y.shape = (2, 1)
    return np.sum(y * x)


def indexed_by_a_variable(x, net):
    for i in range(len(net.layers)):
        net.layers[i].cache.append(x)
    return np.sum(x ** 2)


def test_a_layer_indexed_by_a_variable_appends_once_per_call():
    # (net.layers[i] with i from range(len(...)): once refused, now each layer's append
    # runs in the forward sweep, once per gradient call, as one plain call does)
    net, x = _net(), np.array([0.3, 0.7])
    np.testing.assert_allclose(s2sad.grad(indexed_by_a_variable)(x, net), 2 * x)
    assert [len(layer.cache) for layer in net.layers] == [1, 1]
    assert all(layer.cache[0] is x or np.array_equal(layer.cache[0], x) for layer in net.layers)


REFUSED = [
    (stores_and_reads, Stores, DifferentiationError, "self.h = x * 2",
     "Keep the value in a variable"),
    (sgd, Stores, DifferentiationError, "self.W = self.W - 0.1 * g",
     "Keep the value in a variable"),
    (loops_on_an_attribute, Stores, DifferentiationError, "m.h = x",
     "Keep the value in a variable"),
    (reads_through_getattr, Stores, DifferentiationError, "m.h = x * 2",
     "Keep the value in a variable"),
    (appends_and_reads, _dense, DifferentiationError, "m.X.append(x * 2)",
     "Keep the value in a variable"),
    (in_place, Stores, UnsupportedSyntaxError, "self.buf[:] = x",
     "Make a new value and set the attribute"),
    (replaces_a_layer, Stores, UnsupportedSyntaxError, "self.layer = Dense(W0, B0)",
     "s2sad reads these when it builds the gradient"),
    (keeps_a_function, Stores, UnsupportedSyntaxError, "self.h = np.tanh",
     "store numbers, arrays, lists and dicts"),
    (sets_a_local_arrays_shape, Stores, UnsupportedSyntaxError, "y.shape = (2, 1)",
     "Assign to a plain variable"),
]


@pytest.mark.parametrize("f, make, error, line, advice", REFUSED,
                         ids=[r[0].__name__ for r in REFUSED])
@pytest.mark.parametrize("maker", [s2sad.grad, s2sad.jvp], ids=["reverse", "forward"])
def test_refused_at_the_users_line(f, make, error, line, advice, maker):
    x = X0.copy() if f is not stores_and_reads else X0[0].copy()
    if f in (sgd,):
        x = W0.copy()
    with pytest.raises(error) as info:
        maker(f)(x, make())
    text = str(info.value)
    assert __file__.rstrip("c") in text and line in text and advice in text


def test_adding_in_place_to_an_array_attribute_is_refused_when_it_runs():
    obj = Stores()
    with pytest.raises(DifferentiationError, match=r"self\.W \+= 1\.0.*changes in place"):
        s2sad.grad(lambda_free_adds)(X0, obj)


def lambda_free_adds(x, m):
    return m.adds_in_place(x)


def test_a_count_read_again_is_exact():
    obj = _dense()
    g = s2sad.grad(reads_a_count_again)(X0, obj)
    np.testing.assert_allclose(g, 2 * X0 * 2)  # (n_calls 0 -> 2: the factor is 2)
    assert obj.n_calls == 2


# --- scikit-learn-style loss_and_grad ----------------------------------------------------------

Xs = RNG.normal(size=(6, 3))
ys = np.sign(RNG.normal(size=6))
w0 = RNG.normal(size=3)


def logistic_with_rank(w, X, y):
    z = X @ w
    loss = np.sum(np.logaddexp(0, -y * z))
    rank = np.linalg.matrix_rank(X * w)
    grad = X.T @ (-y / (1 + np.exp(y * z)))
    return loss, (grad, rank)


def with_a_sparse_count(w, X, y):
    loss = np.sum((X @ w - y) ** 2)
    S = scipy.sparse.csr_matrix(np.outer(w, w) * (np.abs(np.outer(w, w)) > 0.1))
    return loss, S.nnz


def with_a_filter(w, X, y):
    loss = np.sum((X @ w - y) ** 2) / 2
    smooth = scipy.ndimage.gaussian_filter(w, 1.0)  # (no rule: fed w, feeds aux only)
    return loss, smooth


def with_polyfit(w, X, y):
    loss = np.sum(np.cos(X @ w))
    coefficients = np.polyfit(np.arange(3.0), w, 1)
    return loss, coefficients


def with_polyfit_of_a_list(w, X, y):
    loss = np.sum(np.sin(X @ w))
    coefficients = np.polyfit(np.arange(3.0), [w[0], w[1] * 2.0, w[2]], 1)
    return loss, coefficients


def hand_written_in_place(w, X, y):
    z = X @ w
    p = 1 / (1 + np.exp(-z))
    loss = -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))
    grad = np.zeros_like(w)
    d = p - y
    for j in range(X.shape[1]):
        grad[j] += np.dot(X[:, j], d)
    grad *= 1.0 / X.shape[0]
    grad[0] -= 0.0
    return loss, grad


AUX = [logistic_with_rank, with_a_sparse_count, with_a_filter, with_polyfit,
       with_polyfit_of_a_list, hand_written_in_place]


@pytest.mark.parametrize("f", AUX, ids=[f.__name__ for f in AUX])
def test_loss_and_grad_gradient_of_the_loss(f):
    y = (ys > 0).astype(float) if f is hand_written_in_place else ys
    g, aux = s2sad.grad(f, has_aux=True)(w0, Xs, y)
    expected = _cd(lambda w: f(w, Xs, y)[0], w0)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)
    want = f(w0, Xs, y)[1]
    for got, ref in zip(aux if isinstance(aux, tuple) else (aux,),
                        want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(got, ref)
    (value, aux2), g2 = s2sad.value_and_grad(f, has_aux=True)(w0, Xs, y)
    assert value == pytest.approx(f(w0, Xs, y)[0])
    np.testing.assert_allclose(g2, g)


@pytest.mark.parametrize("f", [logistic_with_rank, hand_written_in_place],
                         ids=["rank", "in_place"])
def test_loss_and_grad_second_order(f):
    y = (ys > 0).astype(float) if f is hand_written_in_place else ys

    def loss_only(w, X, y):
        return f(w, X, y)[0]
    h = s2sad.hessian(loss_only)(w0, Xs, y)
    expected = _cd(lambda w: s2sad.grad(loss_only)(w, Xs, y), w0)
    np.testing.assert_allclose(h, expected, rtol=1e-5, atol=1e-7)


def filter_in_the_loss(w, X, y):
    smooth = scipy.ndimage.gaussian_filter(w, 1.0)
    return np.sum(smooth ** 2), None


def polyfit_in_the_loss(w, X, y):
    coefficients = np.polyfit(np.arange(3.0), w, 1)
    return np.sum(coefficients ** 2), None


def sparse_in_the_loss(w, X, y):
    S = scipy.sparse.csr_matrix(np.outer(w, w))
    return S.sum(), None


@pytest.mark.parametrize("f, line", [
    (filter_in_the_loss, "smooth = scipy.ndimage.gaussian_filter(w, 1.0)"),
    (polyfit_in_the_loss, "coefficients = np.polyfit(np.arange(3.0), w, 1)"),
    (sparse_in_the_loss, "S = scipy.sparse.csr_matrix(np.outer(w, w))")],
    ids=["filter", "polyfit", "sparse"])
def test_the_same_call_feeding_the_loss_is_refused_at_its_line(f, line):
    with pytest.raises(NoDerivativeError) as info:
        s2sad.grad(f, has_aux=True)(w0, Xs, ys)
    text = str(info.value)
    assert line in text and "no derivative rule" in text and __file__.rstrip("c") in text


def mutating_aux(w, X, y):
    loss = np.sum(w ** 3)
    scaled = scipy.linalg.blas.dscal(1.5, w)  # (no facts; BLAS scales w in place)
    return loss, scaled


def test_an_unknown_call_that_changes_its_argument_is_refused_when_it_runs():
    with pytest.raises(NoDerivativeError) as info:
        s2sad.grad(mutating_aux, has_aux=True)(w0.copy(), Xs, ys)
    text = str(info.value)
    assert "scaled = scipy.linalg.blas.dscal(1.5, w)" in text
    assert "does not know whether it changes" in text


def test_an_unknown_call_feeding_aux_is_called_through_a_check():
    source = s2sad.grad(with_a_filter, has_aux=True).source_for(w0, Xs, ys)
    assert "unchanged_call(" in source
    plain = s2sad.grad(lambda_free_loss_only).source_for(w0, Xs, ys)
    assert "unchanged_call" not in plain  # (code without unknown calls is unchanged)


def lambda_free_loss_only(w, X, y):
    return np.sum((X @ w - y) ** 2)
