"""Findings of the s32 adversarial pass on programs written the way tutorials and papers
write them (optimizers unrolled, normalization layers, attention, filters, integrators,
GP likelihoods, FFT losses...), each checked against float64 central differences, with
the test that fails without its fix:

* SILENTLY WRONG: ``out = np.zeros_like(p); logp = np.log(p, out=out)`` (also with
  ``where=p > 0``, the safe log of an entropy; ``np.multiply(a, b, out=buf)``; or
  ``out[:] = v; y = out``), then a term reading ``y``. The optimizer's pass that adds a
  sensitivity's terms in one expression moved the term ``unbroadcast_product(y, ...)``
  past the reverse sweep's restore ``out[:] = stack.pop()``, which changes ``y`` too (it is
  ``out``): the term read the zeros ``out`` held before. ``-1`` for ``-(log p + 1)``;
  ``0.5`` for ``0.75`` (``sum(p * y)``, ``y = p ** 2`` at 0.5). Right with
  ``optimize=False``. CombinedTerms now looks at the names that share memory with what
  the term reads (forward substitution's memory groups).
* ``logp = np.log(p, where=p > 0, out=np.zeros_like(p))`` (the safe log of an entropy,
  ``np.divide(a, b, out=np.zeros_like(a), where=b != 0)``): refused ("an output array
  made on the line"), with the advice to leave ``out=`` out, which with ``where=`` leaves
  the other entries uninitialized. An output made by ``np.zeros``, ``ones``, ``empty``
  or ``full`` (``_like``) of names and constants is now made first, into a name of its
  own, and the call is followed as ``out=`` a name is. Inside an expression, still
  refused, with advice that keeps ``out=``.
* A class whose method has a default (``def __init__(self, n, eps=1e-5, momentum=0.1)``,
  ``def forward(self, x, training=True)``), the batch norm of every tutorial, made in
  the function and called (``bn = BatchNorm(3)``, ``bn(x)``, ``bn.forward(x,
  training=False)``): refused, as ``no derivative rule for bn() (a function held in a
  variable)``. The same class without defaults was followed. A method's defaults of
  plain data are written out at its calls now, and keywords given as positions, as a
  dataclass's fields were.
* ``np.mean(err, where=valid)``, ``np.sum(x, axis=1, where=mask)`` (and ``x.mean(where=...)``),
  the masked mean of padded sequences: refused (``got an unexpected keyword argument
  'where'``). Their rules take ``where`` now: the entries left out get no sensitivity (nor
  a NaN from the padding), and the mean divides by the entries kept in each slice.
* ``for k in params: params[k] -= lr * grads[k]`` (also ``params.keys()``, ``list(params)``),
  the SGD step of a dict of parameters made in the function: refused as "a slot holding
  a value shared with 'k'". A loop over a dict gives its keys (hashable, never an
  array), but the loop variable was taken to share the dict's values. It shares nothing
  now, where the dict is made in the function.

The programs that passed (right gradient and Hessian-vector product, or refused at the
user's line) are listed at the end, in ``SURVEYED``.
"""

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences


def _check(f, args, wrt=0, rtol=1e-6):
    got = s2sad.grad(f, wrt=wrt)(*args)
    want = central_differences(f, args, wrt)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-7 * (1 + np.max(np.abs(want))))
    return got


def _check_hvp(f, args, wrt=0, rtol=1e-5):
    v = np.random.default_rng(1).standard_normal(np.shape(args[wrt]))
    got = s2sad.hvp(f, wrt=wrt)(*args, v)
    g = s2sad.grad(f, wrt=wrt)
    eps = 1e-5
    up, down = list(args), list(args)
    up[wrt] = args[wrt] + eps * v
    down[wrt] = args[wrt] - eps * v
    want = (np.asarray(g(*up)) - np.asarray(g(*down))) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6 * (1 + np.max(np.abs(want))))


# --- a method's defaults --------------------------------------------------------------------


class BatchNorm:
    def __init__(self, n, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.running_mean = np.zeros(n)
        self.running_var = np.ones(n)

    def __call__(self, x, gamma, beta):
        mu = x.mean(axis=0)
        var = x.var(axis=0)
        self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * mu
        self.running_var = (1 - self.momentum) * self.running_var + self.momentum * var
        xhat = (x - mu) / np.sqrt(var + self.eps)
        return gamma * xhat + beta


def batchnorm(x, gamma, beta):
    bn = BatchNorm(3)
    out = bn(x, gamma, beta)
    return np.sum(out ** 3) + np.sum(bn.running_var)


class RunningNorm:
    def __init__(self, n, eps=1e-5, momentum=0.1, axis=-1):
        self.eps = eps
        self.momentum = momentum
        self.axis = axis
        self.rm = np.zeros(n)
        self.rv = np.ones(n)

    def forward(self, x, training=True, scale=1.0):
        if training:
            mu = x.mean(0)
            var = x.var(0)
            self.rm = (1 - self.momentum) * self.rm + self.momentum * mu
            self.rv = (1 - self.momentum) * self.rv + self.momentum * var
        else:
            mu, var = self.rm, self.rv
        return scale * (x - mu) / np.sqrt(var + self.eps) + self.axis


def norm_train_then_eval(x):
    bn = RunningNorm(3, eps=0.5)
    y = bn.forward(x)
    z = bn.forward(y * x, training=False)
    return np.sum(z ** 3) + np.sum(bn.rv * bn.rm)


def norm_keywords_out_of_order(x):
    bn = RunningNorm(momentum=0.3, n=3)
    y = bn.forward(x, scale=2.0, training=True)
    return np.sum(bn.forward(x * y, False, 3.0) ** 2) + bn.eps


def norm_keyword_of_the_argument(x):
    bn = RunningNorm(3, momentum=float(x[0, 1] ** 2))
    bn.forward(x, scale=x[0, 0])
    return np.sum(bn.rm * bn.rv)


@pytest.mark.parametrize("f", [norm_train_then_eval, norm_keywords_out_of_order,
                               norm_keyword_of_the_argument])
def test_method_defaults_and_keywords(f):
    x = np.random.default_rng(0).standard_normal((4, 3))
    _check(f, (x,))
    _check_hvp(f, (x,))


def test_batchnorm_called_with_its_defaults():
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((8, 3)), rng.standard_normal(3), rng.standard_normal(3))
    for wrt in range(3):
        _check(batchnorm, args, wrt)
    _check_hvp(batchnorm, args)


class Cache:
    def __init__(self, items=[]):
        self.items = items

    def add(self, v):
        self.items = self.items + [v]


def mutable_default(x):
    c = Cache()
    c.add(x * 2.0)
    return np.sum(c.items[0])


def test_mutable_default_still_refused():
    with pytest.raises(s2sad.S2sadError, match="c.items|c.add|Cache"):
        s2sad.grad(mutable_default)(np.ones(3))


# --- reductions with where= -----------------------------------------------------------------


def masked_mean_padded(x, lengths):
    # a batch of sequences padded with NaN: the mean of each row's first lengths[i] entries
    mask = np.arange(x.shape[1])[None, :] < lengths[:, None]
    padded = np.where(mask, x, np.nan)
    per_row = np.mean(padded ** 2, axis=1, where=mask)
    return np.sum(per_row * np.arange(1, x.shape[0] + 1))


def masked_sum_methods(x, lengths):
    mask = np.arange(x.shape[1]) < 3
    a = (x ** 3).sum(axis=0, where=mask[None, :], keepdims=True)
    b = x.mean(where=x > 0)
    c = np.sum(np.sin(x), where=mask)
    return np.sum(a * x) + b * c


def masked_mean_loss(pred, y):
    valid = y > -0.5
    return np.mean((pred - y) ** 2, where=valid) + np.sum(pred, initial=1.0, where=valid) ** 2


@pytest.mark.parametrize("f", [masked_mean_padded, masked_sum_methods])
def test_reductions_where(f):
    rng = np.random.default_rng(2)
    args = (rng.standard_normal((3, 5)), np.array([2, 5, 4]))
    _check(f, args)
    _check_hvp(f, args)


def test_masked_mean_loss_both_arguments():
    rng = np.random.default_rng(3)
    args = (rng.standard_normal(10), rng.standard_normal(10))
    for wrt in (0, 1):
        _check(masked_mean_loss, args, wrt)
    _check_hvp(masked_mean_loss, args)
    h = s2sad.hessian(masked_mean_loss)(*args)
    want = central_differences(s2sad.grad(masked_mean_loss), args, 0)
    np.testing.assert_allclose(h, want, rtol=1e-5, atol=1e-6)


# --- a loop over a dict's keys --------------------------------------------------------------


def sgd_dict_params(W, b):
    params = {"W": W.copy(), "b": b.copy()}
    for _ in range(2):
        grads = {"W": 2 * params["W"] * params["b"], "b": params["W"] ** 2}
        for k in params:
            params[k] -= 0.1 * grads[k]
    return np.sum(params["W"] ** 2) + np.sum(params["b"])


def sgd_dict_keys(W, b):
    params = {"W": W.copy(), "b": b.copy()}
    grads = {"W": np.sin(params["W"]) * params["b"], "b": params["W"] ** 2}
    for k in params.keys():
        params[k] *= 1.0 - 0.1 * grads[k]
    for k in list(params):
        params[k] += grads[k]
    return np.sum(params["W"] ** 2 * params["b"])


@pytest.mark.parametrize("f", [sgd_dict_params, sgd_dict_keys])
def test_dict_loop_updates_its_slots(f):
    rng = np.random.default_rng(4)
    args = (rng.standard_normal(3), rng.standard_normal(3))
    for wrt in (0, 1):
        _check(f, args, wrt)  # (a derivative of the gradient: refused, the dict's slots set
        # in a loop, as for params[k] = params[k] - ..., item_or_missing)


def dict_then_list(W, b):
    c = W.copy()
    p = {"W": c}
    out = 0.0
    for j in range(2):
        for k in p:
            k -= 0.1 * b  # (the second time round, an array of the list: c changes)
            out = out + np.sum(k)
        p = [c]
    return out + np.sum(c ** 2)


def values_updated(W, b):
    p = {"W": W.copy(), "b": b.copy()}
    for v in p.values():
        v *= 2.0
    return np.sum(p["W"] ** 2) + np.sum(p["b"])


@pytest.mark.parametrize("f", [dict_then_list, values_updated])
def test_dict_values_updated_in_place_still_refused(f):
    with pytest.raises(s2sad.S2sadError, match="shared with"):
        s2sad.grad(f)(np.ones(3), np.ones(3))


# --- a result kept as the output array it was written into -----------------------------------


def entropy_safe_log(p):
    # the tutorial's safe log: log(p) where p > 0.3, 0 elsewhere, kept in `out`
    out = np.zeros_like(p)
    logp = np.log(p, where=p > 0.3, out=out)
    return -np.sum(p * logp)


def log_into_buffer(p):
    out = np.zeros_like(p)
    logp = np.log(p, out=out)
    return -np.sum(p * logp)


def product_into_buffer(p):
    out = np.zeros_like(p)
    sq = np.multiply(p, p, out=out)
    return -np.sum(p * sq)


def slice_written_then_named(p):
    out = np.zeros(len(p))
    out[:] = p ** 2
    y = out
    return np.sum(p * y)


def ellipsis_written_then_named(p):
    out = np.zeros(len(p))
    out[...] = np.log(p)
    y = out
    return np.sum(p * y) + np.sum(np.cos(y))


@pytest.mark.parametrize("f", [entropy_safe_log, log_into_buffer, product_into_buffer,
                               slice_written_then_named, ellipsis_written_then_named])
def test_named_output_read_before_its_restore(f):
    # y = out, then a term of s_p reading y: it was moved past the reverse sweep's
    # restore of out (out[:] = stack.pop()), which changes y too, so it read the zeros
    # out held before (log_into_buffer: -1 for -(log p + 1); product_into_buffer: -p**2
    # for -3 p**2)
    p = np.array([0.5, 0.1, 0.9, 2.0, 1.3])
    _check(f, (p,))
    _check_hvp(f, (p,))


# --- an output array made on the line -------------------------------------------------------


def entropy_out_on_the_line(p):
    logp = np.log(p, where=p > 0.3, out=np.zeros_like(p))
    return -np.sum(p * logp) + np.sum(p ** 2)


def safe_divide(a, b):
    r = np.divide(a, b, out=np.full_like(a, -1.0), where=np.abs(b) > 0.2)
    q = np.multiply(a, r, out=np.zeros(a.shape))
    return np.sum(r ** 2) + np.sum(q * b)


@pytest.mark.parametrize("f", [entropy_out_on_the_line, safe_divide])
def test_output_made_on_the_line(f):
    rng = np.random.default_rng(5)
    a = np.abs(rng.standard_normal(7)) + 0.05
    b = rng.standard_normal(7)
    args = (a,) if f is entropy_out_on_the_line else (a, b)
    for wrt in range(len(args)):
        _check(f, args, wrt)
    _check_hvp(f, args)


def divide_inside_an_expression(a, b):
    return np.sum(np.divide(a, b, out=np.zeros_like(a), where=b > 0) ** 2)


def test_output_made_inside_an_expression_refused_with_where_advice():
    # (np.divide(a, b, where=b > 0), the advice before, leaves the entries where b <= 0
    # uninitialized)
    with pytest.raises(s2sad.S2sadError, match="left uninitialized"):
        s2sad.grad(divide_inside_an_expression)(np.ones(3), np.array([1.0, -1.0, 2.0]))


# The survey's programs (239, in the style of tutorials and papers) that were right on main
# (gradient and Hessian-vector product against central differences), or refused at the
# user's line with file:line and advice. No other silently wrong gradient was found.
SURVEYED = {
    "right": """adam_unrolled momentum_inplace layernorm causal_attention causal_attention_where
        conv1d_loops conv1d_convolve conv1d_sliding lstm gru kalman kalman_inplace rk4 springs
        gp_nll gp_nll_solve_triangular logsumexp_rows softmax_xent huber soft_kmeans
        heat_stencil heat_roll polyfit_wrt_design cumret tied_ae tied_ae_class dropout_fixed
        clip_sgd pairwise_dist einsum_contract masked_mean topk_loss trimmed_mean fft_power
        fft_lowpass irfft_filter_even convolve_same_even chol_upper_np chol_scipy_default
        eigh_nonsym eigvalsh_upper prod_with_zero cumprod_with_zero int_buffer_write
        repeated_index_iadd repeated_index_assign dict_adam_state adam_slice_assign
        stats_mvn dirichlet_loss np_gradient_physics""".split(),
    "refused": """particles_views stencil_swap polyfit_lstsq(np.vander) pairwise_dist_gram
        (np.fill_diagonal) binned_mean(np.add.at) binned_bincount(np.bincount) view writes
        rng.normal(mu, sigma) rng.permutation(x) scipy.signal.lfilter list_param_sgd
        np.prod(initial=) np.meshgrid np.unique try/except nonlocal lambda-in-dict property
        recursion math.fsum odeint(nested rhs) np.corrcoef np.polyfit np.histogram(weights)
        np.ediff1d heapq.nlargest""".split(),
}
