"""Findings of the s34 adversarial pass on realistic programs (an MLP class, batch norm
with running statistics, Adam unrolled, LSTM, Kalman, GMM, Black-Scholes, stencils, FFT
filters, user classes with dunders, generators, decorators, dtypes...), each checked
against float64 central differences, with the test that fails without its fix. No
silently wrong gradient was found; these are the refusals fixed:

* ``xb = X[idx]; xb -= xb.mean(axis=0)`` (a mini-batch gathered by a list or an index
  array, then centred in place), ``rows = E[[0, 2, 2]]; rows[1] = ...``: refused as "an
  in-place update of 'xb', which shares its memory with the argument 'X'" (it would
  "change the caller's value"). NumPy's advanced indexing copies: nothing is shared. A
  gather from an array known as one (an argument array, ``x * 2``...) by a list or an
  index array made here (``[0, 2]``, ``np.array([...])``, ``np.arange``, ``np.argsort``)
  is a new value now. A user's ``__getitem__`` may return anything: still refused.
* ``p.update(dt)`` on an object of the user's class whose method changes its arrays in
  place: the advice was "Build a new dict: `p = {**p, **more}`" (dict.update's). It says
  what to do for a dict and for an object now.
* ``np.logaddexp.reduce(alpha[:, None] + logA, axis=0)``, the HMM forward algorithm in
  log space: refused (no derivative rule). It is written with functions that have rules
  now (``implementations.logaddexp_reduce``: the largest item shifted out, infinities
  and NaN as NumPy gives them). ``np.logaddexp.accumulate`` stays refused.
* ``del d["b"]``: the advice was "Remove the `del`", which changes what the function
  computes (``sum(d.values())`` then adds ``d["b"]``). It says to build a new dict or
  list without the item now.

The programs surveyed, right or refused at the user's line, are listed in ``SURVEYED``.
"""

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences

X = np.random.default_rng(0).standard_normal((6, 3))
W = np.array([0.3, -0.5, 0.8])


def _check(f, args, wrt=0):
    """The gradient against central differences, the value, and the arguments left as
    Python leaves them."""
    given = [np.copy(a) for a in args]
    got = s2sad.grad(f, wrt=wrt)(*given)
    want = central_differences(f, args, wrt)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    value, _ = s2sad.value_and_grad(f, wrt=wrt)(*given)
    assert value == pytest.approx(f(*[np.copy(a) for a in args]), rel=1e-12)
    for before, after in zip(args, given, strict=True):
        np.testing.assert_array_equal(before, after)
    v = np.random.default_rng(34).standard_normal(np.shape(args[wrt]))
    _, push = s2sad.jvp(f, wrt=wrt)(*given)
    assert push(v) == pytest.approx(float(np.sum(want * v)), rel=1e-6, abs=1e-7)


# --- a gather by a list or an index array is a copy -------------------------------------


def batch_centred(w, X):
    idx = [0, 2, 5]
    xb = X[idx]
    xb -= xb.mean(axis=0)
    return np.sum(np.tanh(xb @ w) ** 2)


def batch_scaled_by_index_array(w, X):
    idx = np.array([0, 2, 5])
    xb = X[idx]
    xb /= xb.std(axis=0) + 1.0
    return np.sum(np.tanh(xb @ w) ** 2)


def rows_of_a_parameter(w, X):
    E = w.reshape(3, 1) * np.ones((3, 2))
    rows = E[[0, 2, 2]]
    rows[1] = rows[1] * 3.0
    return np.sum(rows ** 2) + np.sum(E * X[:3, :2])


def gathered_then_source_changed_later(w, X):
    y = w * 2.0
    z = y[[0, 2, 2]]
    z[1] = z[2] * w[1]
    z += y
    return np.sum(z ** 2) + np.sum(y * w)


def sorted_rows_and_columns(w, X):
    M = X[:3] * w
    order = np.argsort(w)
    rows = M[order]
    rows[0] = 0.0
    cols = M[:, [0, 2]]
    cols -= 1.0
    first = M[np.arange(2), 1]
    first *= 3.0
    return np.sum(M ** 2) + np.sum(rows ** 2) + np.sum(cols ** 3) + np.sum(first * w[:2])


@pytest.mark.parametrize("f", [batch_centred, batch_scaled_by_index_array,
                               rows_of_a_parameter, gathered_then_source_changed_later,
                               sorted_rows_and_columns])
def test_a_gather_by_a_list_or_an_index_array_is_a_copy(f):
    _check(f, (W, X))


def test_the_gather_with_respect_to_the_data_too():
    _check(batch_centred, (W, X), wrt=1)


class _Whole:
    def __init__(self, a):
        self.a = a

    def __getitem__(self, i):
        return self.a  # (any index: the array itself, not a copy)


def users_getitem(w, X):
    y = w * 1.0
    z = _Whole(y)[[0, 1]]
    z[0] = 5.0
    return np.sum(y ** 2)


def mask_gather(w, X):
    xb = X[X[:, 0] > 0]  # (a copy: boolean indexing is advanced; view_writes says so)
    xb *= 2.0
    return np.sum(np.tanh(xb @ w) ** 2)


def slice_gather(w, X):
    y = w * 1.0
    z = y[0:2]  # (a view: y changes too)
    z[0] = 5.0
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [users_getitem, slice_gather])
def test_what_may_share_memory_stays_refused(f):
    with pytest.raises(s2sad.S2sadError, match="shares its memory"):
        s2sad.grad(f)(W.copy(), X.copy())


def test_a_mask_gather_is_a_copy():
    """``X[mask]`` copies (NumPy's advanced indexing): ``xb *= 2.0`` leaves ``X`` alone."""
    given = X.copy()
    got = s2sad.grad(mask_gather)(W.copy(), given)
    np.testing.assert_array_equal(given, X)
    step = 1e-6
    want = [(mask_gather(W + step * e, X) - mask_gather(W - step * e, X)) / (2 * step)
            for e in np.eye(len(W))]
    np.testing.assert_allclose(got, want, rtol=1e-6)


# --- np.logaddexp.reduce: the HMM forward algorithm in log space ---------------------------


def hmm_forward(logA):
    A = logA.reshape(2, 2)
    logpi = np.log(np.array([0.6, 0.4]))
    logB = np.log(np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]]))
    alpha = logpi + logB[:, 0]
    for o in [2, 1, 2]:
        alpha = np.logaddexp.reduce(alpha[:, None] + A, axis=0) + logB[:, o]
    return np.logaddexp.reduce(alpha)


def logaddexp_rows_kept(x):
    M = x.reshape(2, 2)
    return np.sum(np.logaddexp.reduce(M, axis=1, keepdims=True) * np.array([[1.0], [3.0]]))


def logaddexp_whole(x):
    return np.logaddexp.reduce(x.reshape(2, 2) * 2.0, axis=None) ** 2


def logaddexp_with_impossible_moves(x):
    # (log 0 = -inf: a transition that never happens, a constant of the model)
    logA = np.array([[-np.inf, 0.2], [-0.5, -np.inf]])
    return np.sum(np.logaddexp.reduce(logA + x.reshape(2, 2), axis=1) ** 2)


@pytest.mark.parametrize("f", [hmm_forward, logaddexp_rows_kept, logaddexp_whole,
                               logaddexp_with_impossible_moves])
def test_logaddexp_reduce(f):
    x = np.log(np.array([0.7, 0.3, 0.4, 0.6]))
    _check(f, (x,))
    v = np.array([0.3, -0.2, 0.5, 0.1])
    g = s2sad.grad(f)
    want = (g(x + 1e-5 * v) - g(x - 1e-5 * v)) / 2e-5
    np.testing.assert_allclose(s2sad.hvp(f)(x, v), want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("a", [[-np.inf, -np.inf], [np.inf, 1.0], [np.inf, -np.inf],
                               [np.nan, 1.0], [-np.inf, 2.0], [1000.0, 999.0],
                               [-1000.0, -1001.0]])
def test_logaddexp_reduce_values_are_numpys(a):
    a = np.array(a)
    with np.errstate(invalid="ignore"):  # (the slope at an infinity or NaN: NaN; NumPy's
        value, _ = s2sad.value_and_grad(lambda x: np.logaddexp.reduce(x))(a)  # NaN warns)
        np.testing.assert_array_equal(value, np.logaddexp.reduce(a))


def test_logaddexp_reduce_of_float32_stays_float32():
    a = np.array([1.0, 2.0, -0.5], dtype=np.float32)
    value, grad = s2sad.value_and_grad(lambda x: np.logaddexp.reduce(x))(a)
    assert value.dtype == np.float32 and grad.dtype == np.float32
    assert value == pytest.approx(float(np.logaddexp.reduce(a)), rel=1e-6)
    np.testing.assert_allclose(grad, np.exp(a - np.logaddexp.reduce(a)), rtol=1e-6)


# --- advice that fits the value ----------------------------------------------------------


class Particle:
    def __init__(self, x0):
        self.x = np.asarray(x0, dtype=float)
        self.xprev = self.x - 0.1

    def update(self, dt):
        temp = np.copy(self.x)
        self.x += (self.x - self.xprev) - self.x * dt * dt
        self.xprev[:] = temp


def particle_updated_in_place(x0):
    p = Particle(x0)
    p.update(0.1)
    return np.sum(p.x ** 2)


def test_an_objects_update_is_not_taken_for_a_dicts():
    with pytest.raises(s2sad.S2sadError) as caught:
        s2sad.grad(particle_updated_in_place)(np.array([0.5, -0.3]))
    text = str(caught.value)
    assert "p.update(0.1)" in text and "If it is a dict" in text
    assert "If it is an object of your class" in text and "self.x = self.x + v" in text


def deletes_an_item(x):
    d = {"a": x[0] ** 2, "b": x[1] * 3, "c": x[2]}
    del d["b"]
    return sum(d.values())


def test_del_of_an_item_advises_a_new_dict():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as caught:
        s2sad.grad(deletes_an_item)(np.array([0.3, 0.2, 0.1]))
    text = str(caught.value)
    assert 'del d["b"]' in text and "Remove the `del`" not in text
    assert "build a new one without the item" in text


# The survey (about 280 programs in the style of tutorials, papers and libraries) right on
# main (gradient, value_and_grad's value, jvp and hvp against central differences; the
# arguments left as Python leaves them), or refused at the user's line.
SURVEYED = {
    "right": """mlp(layers by index) bn_dict(cs231n bn_param) adam_twice adam_inplace
        lstm(np.split gates) gmm_logsumexp softmax(np.maximum.reduce) kmeans(argmin gather)
        minibatch_generator functools.reduce(layers) lru_cache_helper functools.wraps
        decorator property_values springs(+= in a loop) black_scholes(ndtr, erf)
        heat_stencil(u[1:-1] = ...) heat_boundaries horner horner_inplace conv_loops
        np.convolve scipy.signal.convolve/fftconvolve/correlate rfft/irfft filters
        complex_loss(abs, angle of products) kalman(P -= K @ H @ P) x[1:] = x[:-1]
        x[:-1] = x[1:]; x[2:] += x[:-2] out=float32 buffer int arrays updated in place
        then mixed with floats NEP 50 float32 (value and dtype exact) dataclasses.replace
        objects in a list display or a named list walked by a loop named dict of objects
        user methods named update that rebind attributes staticmethod/classmethod
        getattr(m, 'w') repeated fancy assignment masked in-place scaling argsort gather
        np.maximum.accumulate drawdown where-then-inplace swap with copies Gauss-Newton
        (solve) list SGD enumerate updates rnn into a preallocated H[t + 1] rnn buffer
        h[:] = ... nested loops writing M[i, j] weights rebound and sliced in a loop
        Newton sqrt with break rk4 closure Euler into a preallocated Y try/except
        ZeroDivisionError, LinAlgError, KeyError (finally) assert/raise early return
        for-else backtracking line search bubble sort with element swaps IIR filter
        y[i] = 0.5 * y[i - 1] + y[i] default_rng inside (VAE reparameterization, dropout,
        choice batches) np.random.seed scipy.stats MLE (norm, t, gamma, lognorm, beta,
        poisson, binom, expon, multivariate_normal) expm cho_factor/cho_solve
        solve_triangular qr svd eigh ridge slogdet interp (fp and x) trapezoid(x)
        quantile/median/percentile einsum (diagonal, trace, ellipsis) pad modes
        take_along_axis ddof np.select (overlapping conditions) np.choose clip (crossed
        bounds, array bounds) fmax/fmin with NaN outer/inner/dot of 2-d and 3-d cross
        diag/trace offsets triu/tril/rot90/flip matrix_power multi_dot norms (nuc, -2,
        1, fro, inf) tile/repeat roll(tuple shifts) reductions over axis tuples correlate
        fft2/ifftshift batched matmul maximum ties array_split global dict config or/and
        defaults max/sum/round/divmod builtins median by sorted() tolist() loops f-string
        and %-keys in a dict **kwargs/*args helpers default array arguments
        closures rebound later star unpacking ternaries in comprehensions
        float32 programs (value bitwise, gradient to 1e-7) Lennard-Jones by triu_indices
        n-body with softening Ising by np.roll total variation conv2d by slices portfolio
        softmax CVaR by sort and mask Monte Carlo call price leapfrog wave upwind
        advection array methods (dot, trace, cumsum, var(ddof), swapaxes, clip, round...)
        a dict-of-arrays argument copied and rebound generators yielding slices, read
        numba target: loops of logistic loss, heat, pair energy, RNN, Horner, prefix
        jacobian of residuals, heat, softmax, RNN states; hessian of rk4 and Kalman""".split(),
    "refused": """MLP whose __init__ appends layers to a list, walked by its forward (no rule
        for layer.forward()) batch norm with self.running_mean *= ... (an object's array
        changed in place) dataclass field list appended (p.history.append) class attribute
        set (Tracker.seen = []) or read on an instance (no rule for .v) user Vector
        dunders reached through sum() (no method 'norm2') __iadd__ changing an attribute
        user __getitem__/__setitem__ (an array of unknown dtype) y = x; y += 1 list holding
        one array twice views written (ravel, reshape, split, squeeze, M.T[0] = ..., rows
        of a loop over M, zip(A, B) rows) chained y[[1, 2]][0] = ... np.add.at
        put_along_axis np.floor(out=int buffer) np.logaddexp.accumulate super() in a
        method params.values() after keys set in a loop arguments
        updated (a state dict, a running array, a log list, an object's attribute)
        property setters class-level caches closures returned as values user __iter__
        dict of lambdas called by key math.hypot(*x) list.sort(key=) list.reverse del
        quad/odeint/solve_ivp with a lambda cumulative_trapezoid savgol_filter
        gaussian_filter1d convolve2d(boundary='wrap') CubicSpline detrend weibull_min
        norm.isf gammaincc(a) polynomial.polyval kurtosis kl_div
        np.average(returned=True) a `global` statement a module dict written
        a global object's method appending scipy.sparse @ and spsolve Sequential([Dense,
        ...]) or Residual(Dense(...)) made in the function (an object holding objects)
        getattr(np, name) a list of operator functions zip(params, grads) with p -= lr * g
        generators yielding views updated in place""".split(),
    "nan, not silent": """nansum/nanmean of data * x where the data is NaN, sqrt(x) ** 2,
        exp(log(x)), (x - x) * inf under nansum: the reverse sweep multiplies the zero
        sensitivity by NaN or inf (NaN where the slope is 0); jvp gives the finite
        slope""".split(),
}


class Vec:
    def __init__(self, data):
        self.data = data

    def __add__(self, other):
        return Vec(self.data + (other.data if isinstance(other, Vec) else other))

    __radd__ = __add__

    def norm2(self):
        return float(np.dot(self.data, self.data))


def vectors_summed(x):
    d = sum([Vec(x), Vec(np.sin(x))])
    return d.norm2()


def test_a_method_of_a_users_object_made_by_sum_is_not_said_to_raise():
    assert vectors_summed(W) > 0  # (Python runs it: no AttributeError)
    with pytest.raises(s2sad.NoDerivativeError) as caught:
        s2sad.grad(vectors_summed)(W.copy())
    text = str(caught.value)
    assert "has no method 'norm2'" in text
    assert "may be an object of your class Vec" in text
    assert "Python raises AttributeError" not in text


def heat_copied_by_method(u0):
    u = u0.copy()
    for i in range(1, 4):
        u[i] = u[i] + 0.2 * (u[i + 1] - 2.0 * u[i] + u[i - 1])
    return np.sum(u * u)


def heat_copied_by_arithmetic(u0):
    u = u0 * 1.0
    for i in range(1, 4):
        u[i] = u[i] + 0.2 * (u[i + 1] - 2.0 * u[i] + u[i - 1])
    return np.sum(u * u)


def test_numba_advice_for_a_method_names_what_it_compiles():
    """``u0.copy()`` on the numba target advised np.copy(...), which it refuses too."""
    pytest.importorskip("numba")
    u0 = np.array([0.3, -0.2, 0.8, 0.1, 0.5])
    with pytest.raises(s2sad.S2sadError) as caught:
        s2sad.grad(heat_copied_by_method, target="numba")(u0)
    text = str(caught.value)
    assert "write np.copy(...)" not in text and "x * 1.0" in text
    got = s2sad.grad(heat_copied_by_arithmetic, target="numba")(u0)  # (the advice, followed)
    want = central_differences(heat_copied_by_arithmetic, (u0,), 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
