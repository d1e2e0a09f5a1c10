"""Findings of the s35 adversarial pass on Python as people write it (helpers forwarding
*args/**kwargs, keyword-only defaults, generator pipelines, itertools, functools,
recursion, dataclasses, properties, closures, early returns, NumPy's overlapping in-place
updates...) and on SciPy, complex values and FFTs (np.fft and scipy.fft with every norm,
n= padding and cropping, irfft/hfft of complex spectra, scipy.special, scipy.linalg,
scipy.stats, einsum, slogdet/eigh/svd/qr losses, dtypes and NEP 50), each checked against
float64 central differences.

One silently wrong gradient was found, in the ``plain_numpy`` pass. A value read by two
reductions lost one of their terms:

* ``e = np.exp(x); np.sum(e * w) / np.sum(e)`` (a softmax's expectation), or
  ``t = np.tanh(x); np.dot(t, w) - np.sum(t)``, ``np.sum(s ** 2) * np.sum(s)``. The adjoint
  is ``s_e = sum_grad(c, like=x); s_e = s_e + dot_grad_left(...); s_x = s_e * e``. The
  pass may move ``sum_grad(...)`` into the one read of the name it is given. It moved it
  into ``s_x = s_e * e`` instead, which reads the *second* value of ``s_e``: the other
  term was dropped (``s_x = c * e``). It moves it into that one read only now.

Refusals made better, or lifted:

* ``np.max(x, initial=v)``, ``np.prod(x, where=m)``: "Check the call's arguments". The
  advice names the keyword and the expression with rules that computes the same.
* ``acc = defaultdict(float); acc[k] += v``: refused as "an array whose dtype s2sad cannot
  establish", advising np.zeros. It is refused as a dict's subclass now, advising a dict
  with its keys (which is followed).
* ``match x.shape: case (n,) if n > 2:``: the advice is the ``if`` that writes it.
* ``stats.norm.ppf(q, loc, scale)`` (and isf, of every location-scale family): no rule.
* ``c, *_ = np.linalg.lstsq(A, b)``, ``*init, last = np.linalg.svd(A)``: refused as a
  value whose length s2sad cannot tell. Taken by index now, the length checked when it runs.
"""

import collections
from collections import defaultdict

import numpy as np
import pytest
import scipy.special as special
import scipy.stats as stats

import s2sad
from test_higher_order import central_differences

X = np.array([0.33, -0.72, 0.91])
W3 = np.array([1.0, 2.0, 3.0])
M = np.array([[1.0, 0.5], [-0.3, 2.0], [0.7, -1.1]])


def _check(f, x=X):
    """The gradient against central differences, the value, the argument left as Python
    leaves it, and the forward mode's directional derivative."""
    given = np.copy(x)
    got = s2sad.grad(f)(given)
    want = central_differences(f, [np.copy(x)], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    value, again = s2sad.value_and_grad(f)(given)
    assert value == pytest.approx(f(np.copy(x)), rel=1e-12)
    np.testing.assert_allclose(again, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(given, x)
    v = np.array([0.7, -0.2, 0.4])
    _, push = s2sad.jvp(f)(given)
    assert push(v) == pytest.approx(float(want @ v), rel=1e-6, abs=1e-7)


# --- a value read by two reductions keeps both terms ----------------------------------


def softmax_expectation(x):
    e = np.exp(x)
    return np.sum(e * np.array([1.0, 2.0, 3.0])) / np.sum(e)


def softmax_expectation_shifted(x):
    m = np.max(x)
    e = np.exp(x - m)
    return np.sum(e * W3) / np.sum(e)


def softmax_expectation_by_dot(x):
    e = np.exp(x)
    return np.dot(e, W3) / np.sum(e)


def dot_minus_sum(x):
    t = np.tanh(x)
    return np.dot(t, W3) - np.sum(t)


def log_partition(x):
    e = np.exp(2.0 * x)
    return np.sum(e * W3) - np.log(np.sum(e))


def matmul_summed_and_sum(x):
    s = np.sin(x)
    return np.sum(s @ M) + np.sum(s) ** 2


def sum_of_squares_times_sum(x):
    s = np.sin(x)
    return np.sum(s ** 2) * np.sum(s)


def vdot_and_sum(x):
    e = np.cosh(x)
    return np.vdot(e, W3) + np.sum(e) * 3.0


def normalized_by_its_squares(x):
    e = np.exp(x)
    p = e / np.sum(e ** 2)
    return np.sum(p * np.array([1.0, 2.0, -0.5])) + np.sum(p) * np.sum(e)


def kernel_weighted_average(x):
    w = np.exp(-x ** 2)
    return np.sum(w * np.array([0.5, -0.2, 0.8])) / np.sum(w)


@pytest.mark.parametrize("f", [softmax_expectation, softmax_expectation_shifted,
                               softmax_expectation_by_dot, dot_minus_sum, log_partition,
                               matmul_summed_and_sum, sum_of_squares_times_sum,
                               vdot_and_sum, normalized_by_its_squares,
                               kernel_weighted_average])
def test_a_value_read_by_two_reductions_keeps_both_terms(f):
    _check(f)



# --- a reduction's initial= or where= is refused with what to write instead -------------


def max_with_initial(x):
    return np.max(x ** 2, initial=0.5)


def min_with_where(x):
    return np.min(x, where=x > -0.5, initial=2.0)


def prod_with_where(x):
    return np.prod(x, where=x > 0)


@pytest.mark.parametrize("f, advice", [
    (max_with_initial, "np.maximum(np.max(np.where(m, x, v)), v)"),
    (min_with_where, "np.minimum(np.min(np.where(m, x, v)), v)"),
    (prod_with_where, "v * np.prod(np.where(m, x, 1.0))")])
def test_a_reductions_initial_or_where_is_refused_with_what_to_write(f, advice):
    with pytest.raises(s2sad.errors.DifferentiationError) as info:
        s2sad.grad(f)(X)
    assert advice in str(info.value)
    assert "Check the call's arguments" not in str(info.value)


def max_as_advised(x):
    return np.maximum(np.max(x ** 2), 0.5)


def min_as_advised(x):
    return np.minimum(np.min(np.where(x > -0.5, x, 2.0)), 2.0)


def prod_as_advised(x):
    return np.prod(np.where(x > 0, x, 1.0))


@pytest.mark.parametrize("f, numpys", [(max_as_advised, max_with_initial),
                                       (min_as_advised, min_with_where),
                                       (prod_as_advised, prod_with_where)])
def test_what_the_advice_writes_is_numpys_value_and_is_followed(f, numpys):
    assert f(X) == numpys(X)
    _check(f)


# --- a defaultdict accumulating is refused as a dict, not as an array -------------------


def totals_in_a_defaultdict(x):
    acc = defaultdict(float)
    for k, v in zip(["a", "b", "a"], x):
        acc[k] += v * v
    return acc["a"] * 2.0 + acc["b"]


def totals_in_collections_defaultdict(x):
    acc = collections.defaultdict(float)
    for k, v in zip(["a", "b", "a"], x):
        acc[k] += v * v
    return acc["a"] * 2.0 + acc["b"]


def totals_as_advised(x):
    acc = {k: 0.0 for k in ["a", "b"]}
    for k, v in zip(["a", "b", "a"], x):
        acc[k] += v * v
    return acc["a"] * 2.0 + acc["b"]


@pytest.mark.parametrize("f", [totals_in_a_defaultdict, totals_in_collections_defaultdict])
def test_a_defaultdict_is_refused_as_a_dict(f):
    with pytest.raises(s2sad.errors.NoDerivativeError) as info:
        s2sad.grad(f)(X)
    assert "dict's subclass" in str(info.value) and "np.zeros" not in str(info.value)
    assert "acc = {k: 0.0 for k in keys}" in str(info.value)


def test_the_dict_the_advice_writes_is_followed():
    assert totals_as_advised(X) == totals_in_a_defaultdict(X)
    _check(totals_as_advised)


# --- a match statement is refused with the if/elif that writes it -----------------------


def loss_by_shape(x):
    match x.shape:
        case (n,) if n > 2:
            return np.sum(x[:2] ** 2)
        case _:
            return np.sum(x)


def loss_by_shape_as_advised(x):
    if x.ndim == 1 and x.shape[0] > 2:
        return np.sum(x[:2] ** 2)
    return np.sum(x)


def test_a_match_statement_is_refused_with_the_if_that_writes_it():
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError) as info:
        s2sad.grad(loss_by_shape)(X)
    assert "if x.ndim == 1 and x.shape[0] > 2:" in str(info.value)
    assert loss_by_shape_as_advised(X) == loss_by_shape(X)
    _check(loss_by_shape_as_advised)


# --- scipy.stats' quantile functions (ppf, isf) ------------------------------------------


def normal_quantiles(x):
    q = special.expit(x)
    return np.sum(stats.norm.ppf(q, loc=x[0], scale=np.exp(x[1])) * np.array([1.0, 2.0, 3.0]))


def quantiles_of_other_families(x):
    q = special.expit(x)
    return (np.sum(stats.logistic.isf(q, 0.3, 2.0) ** 2) +
            np.sum(stats.expon.ppf(q, scale=1.5 + x[2] ** 2)) +
            np.sum(stats.lognorm.ppf(q, 0.5, loc=0.1, scale=2.0 + x[0] ** 2)) +
            np.sum(stats.beta.isf(q, 2.0, 3.0)) + np.sum(stats.gamma.ppf(q, 2.0)) +
            np.sum(stats.chi2.isf(q, 3.0)) + np.sum(stats.cauchy.ppf(q)) +
            np.sum(stats.t.ppf(q, 4.0)) + np.sum(stats.uniform.ppf(q, 0.2, 3.0 + x[1])))


def frozen_quantile(x):
    d = stats.norm(loc=x[0], scale=np.exp(x[1]))
    return d.ppf(special.expit(x[2])) + d.isf(0.2)


@pytest.mark.parametrize("f", [normal_quantiles, quantiles_of_other_families,
                               frozen_quantile])
def test_quantile_functions(f):
    _check(f)


def test_the_hessian_of_a_quantile():
    got = s2sad.hessian(normal_quantiles)(X)
    want = central_differences(s2sad.grad(normal_quantiles), [X], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def quantile_in_a_shape(x):
    return np.sum(stats.t.ppf(0.3, np.exp(x) + 2.0))


def test_a_quantile_in_its_shape_is_refused():
    with pytest.raises(s2sad.errors.NoDerivativeError, match="quantile function"):
        s2sad.grad(quantile_in_a_shape)(X)


# --- a starred assignment of a function's tuple of results ------------------------------


def _matrix(x):
    return np.outer(x, x[:2]) + np.eye(3, 2)


def least_squares_coefficients(x):
    c, *_ = np.linalg.lstsq(_matrix(x), np.array([1.0, 2.0, 3.0]), rcond=None)
    return np.sum(c ** 2)


def least_squares_and_its_singular_values(x):
    c, *rest = np.linalg.lstsq(_matrix(x), np.array([1.0, 2.0, 3.0]), rcond=None)
    return np.sum(c ** 2) + np.sum(rest[2])


def svd_first_and_last(x):
    *init, last = np.linalg.svd(_matrix(x), full_matrices=False)
    return np.sum(init[1]) + np.sum(last[0] ** 2 * np.array([1.0, 3.0]))


def eigh_values_and_the_rest(x):
    w, *rest = np.linalg.eigh(np.outer(x, x) + np.diag([1.0, 2.0, 3.0]))
    return np.sum(w * W3) + np.sum(rest[0][:, 0] ** 2 * W3)


def singular_values_unpacked(x):
    s0, *others = np.linalg.svd(_matrix(x), compute_uv=False)
    return s0 * 2.0 + sum(others)


@pytest.mark.parametrize("f", [least_squares_coefficients,
                               least_squares_and_its_singular_values, svd_first_and_last,
                               eigh_values_and_the_rest, singular_values_unpacked])
def test_a_starred_assignment_of_a_tuple_of_results(f):
    _check(f)


def test_too_few_results_for_the_names_beside_the_star_is_pythons_error():
    def f(x):
        a, b, *rest, c = np.linalg.slogdet(np.outer(x, x) + np.eye(3))
        return a * b

    with pytest.raises(ValueError):
        f(X)
    with pytest.raises(ValueError):
        s2sad.grad(f)(X)
