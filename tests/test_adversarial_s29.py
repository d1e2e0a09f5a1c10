"""Findings of the s29 adversarial pass, each checked against float64 central differences,
with the test that fails without its fix:

* ``np.linalg.eigh``/``eigvalsh``/``cholesky`` (``UPLO``, ``upper``) and
  ``scipy.linalg.cholesky``/``cho_factor``/``eigh``/``solve(assume_a="pos"/"sym")``
  (``lower``) read one triangle of their matrix. Their gradients were symmetric whatever
  the matrix, exact only along symmetric changes: for a matrix that is not symmetric
  (``A = S + np.triu(B, 1)``) the gradient through it was wrong (eigvalsh: 24.86 for
  24.21; cholesky: 25.66 for 25.48; solve: -0.0258 for -0.0284), in reverse and forward
  mode. Where the matrix is not symmetric the gradient now lies in the triangle read
  (``read_triangle``, its adjoint ``spread_triangle``); a symmetric one keeps the
  symmetric gradient.
* The same for their complex (Hermitian) rules, ``scipy.linalg.solve(assume_a="her")``,
  ``np.linalg.svd(hermitian=True)`` (not even symmetric: 0.18 read as -0.026),
  ``np.linalg.pinv(hermitian=True)`` (whose formula used the whole matrix: -0.65 for
  -0.46) and ``scipy.stats.multivariate_normal``'s ``cov`` (SciPy reads its lower
  triangle; the rule inverted the whole matrix: -0.289 for -0.270).
* ``a = b = [x[0], x[1]]; a[0] = x[2]; return b[0] * b[1]``: the right value and a wrong
  gradient ([-0.71, 1.13, 0.0] for [0.0, 1.13, -0.71]); the same for a dict, three
  names, or ``a.append``. ``b = a`` was known to share the list, the temporary both names
  took was not: refused at the update now, as for ``b = a``. The same through a display
  (``b = (a, 1.0)[0]``), a conditional (``b = a if c else [...]``) and ``d.get(k)`` of a
  dict holding the list (0.0 where it is -0.71).

* A nested function's (or lambda's) default argument that is a list the function then
  updates (``def get(l=a)``; ``a[0] = ...``; ``get()``): the default is evaluated once,
  at the ``def``, so ``l`` is ``a``'s list (0.0 for -0.71). Refused at the update.

A partial kept in a name (``g = functools.partial(f, a)``) reaches the list ``a`` as a
default argument does: an update of ``a`` that ``g()`` reads later is refused.
"""

import functools
import inspect

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.stats as st
from test_higher_order import central_differences

import s2sad

X = np.array([0.37, -0.71, 1.13])
W = np.arange(9.0).reshape(3, 3)


def check(f, *makers):
    want = central_differences(f, (X,), 0)
    for grad in makers:
        np.testing.assert_allclose(grad(X.copy()), want, rtol=1e-6, atol=1e-7)


# --- one triangle read: a matrix that is not symmetric ---------------------------------------


def spd(x):
    b = np.outer(x, x + 1.0) + np.diag(x)
    return b @ b.T + 3.0 * np.eye(3)


def lopsided(x):
    """A positive definite matrix plus other numbers above and below its diagonal."""
    return spd(x) + np.triu(np.outer(x, x * x), 1) + 0.3 * np.tril(np.outer(x + 2.0, x), -1)


def eigvalsh_lower(x):
    return np.sum(np.linalg.eigvalsh(lopsided(x)) * np.arange(3.0))


def eigvalsh_upper(x):
    return np.sum(np.linalg.eigvalsh(lopsided(x), UPLO="U") * np.arange(3.0))


def eigh_vectors(x):
    w, v = np.linalg.eigh(lopsided(x))
    return np.sum(w * np.arange(3.0)) + np.sum(np.abs(v[0]) * np.arange(3.0))


def eigh_vectors_upper(x):
    w, v = np.linalg.eigh(lopsided(x), UPLO="U")
    return np.sum(w * np.arange(3.0)) + np.sum(np.abs(v[0]) * np.arange(3.0))


def cholesky_lower(x):
    return np.sum(np.linalg.cholesky(lopsided(x)) * W)


def cholesky_upper(x):
    return np.sum(np.linalg.cholesky(lopsided(x), upper=True) * W)


def stacked_eigvalsh(x):
    return np.sum(np.linalg.eigvalsh(np.stack([lopsided(x), spd(x)])) *
                  np.arange(6.0).reshape(2, 3))


def scipy_cholesky(x):
    return np.sum(sl.cholesky(lopsided(x)) * W)


def scipy_cholesky_lower(x):
    return np.sum(sl.cholesky(lopsided(x), lower=True) * W)


def scipy_cho_factor(x):
    return np.sum(sl.cho_solve(sl.cho_factor(lopsided(x)), x) * np.arange(3.0))


def scipy_cho_factor_lower(x):
    c, _ = sl.cho_factor(lopsided(x), lower=True)
    return np.sum(np.tril(c) * W)


def scipy_eigh(x):
    w, v = sl.eigh(lopsided(x))
    return np.sum(w * np.arange(3.0)) + np.sum(np.abs(v[0]) * np.arange(3.0))


def scipy_eigh_upper(x):
    return np.sum(sl.eigh(lopsided(x), lower=False, eigvals_only=True) * np.arange(3.0))


def scipy_solve_pos(x):
    return np.sum(sl.solve(lopsided(x), x, assume_a="pos") * np.arange(3.0))


def scipy_solve_pos_lower(x):
    return np.sum(sl.solve(lopsided(x), np.outer(x, x), assume_a="pos", lower=True) * W)


def scipy_solve_sym(x):
    return np.sum(sl.solve(lopsided(x), x, assume_a="sym") * np.arange(3.0))


def scipy_solve_sym_lower(x):
    return np.sum(sl.solve(lopsided(x), x, assume_a="sym", lower=True) * np.arange(3.0))


def svd_hermitian(x):
    return np.sum(np.linalg.svd(lopsided(x), hermitian=True)[1] * np.arange(3.0))


def pinv_hermitian(x):
    return np.sum(np.linalg.pinv(lopsided(x), hermitian=True) * W)


def normal_covariance(x):
    return st.multivariate_normal.logpdf(x, np.zeros(3), 0.1 * lopsided(x))


def lopsided_complex(x):
    """A Hermitian positive definite matrix plus other numbers above its diagonal."""
    turn = np.outer(x, x[::-1]) - np.outer(x[::-1], x)
    return lopsided(x) + 0.1j * turn + 1j * np.triu(np.outer(x, x), 1)


def complex_eigvalsh(x):
    return np.sum(np.linalg.eigvalsh(lopsided_complex(x)) * np.arange(3.0))


def complex_eigh_upper(x):
    w, v = np.linalg.eigh(lopsided_complex(x), UPLO="U")
    return np.sum(w * np.arange(3.0)) + np.sum(np.abs(v[1]) * np.arange(3.0))


def complex_cholesky(x):
    return np.sum(np.abs(np.linalg.cholesky(lopsided_complex(x))) * W)


def complex_scipy_cholesky(x):
    return np.sum(np.abs(sl.cholesky(lopsided_complex(x))) * W)


def complex_scipy_eigh(x):
    return np.sum(sl.eigh(lopsided_complex(x), eigvals_only=True) * np.arange(3.0))


def complex_scipy_solve_her(x):
    return np.sum(np.abs(sl.solve(lopsided_complex(x), x + 0j, assume_a="her")) * np.arange(3.0))


ONE_TRIANGLE = [eigvalsh_lower, eigvalsh_upper, eigh_vectors, eigh_vectors_upper,
                cholesky_lower, cholesky_upper, stacked_eigvalsh, scipy_cholesky,
                scipy_cholesky_lower, scipy_cho_factor, scipy_cho_factor_lower, scipy_eigh,
                scipy_eigh_upper, scipy_solve_pos, scipy_solve_pos_lower, scipy_solve_sym,
                scipy_solve_sym_lower, svd_hermitian, pinv_hermitian, normal_covariance,
                complex_eigvalsh, complex_eigh_upper, complex_cholesky, complex_scipy_cholesky,
                complex_scipy_eigh, complex_scipy_solve_her]
ONE_TRIANGLE_IDS = [f.__name__ for f in ONE_TRIANGLE]


@pytest.mark.parametrize("f", ONE_TRIANGLE, ids=ONE_TRIANGLE_IDS)
def test_a_function_reading_one_triangle_of_a_lopsided_matrix(f):
    check(f, s2sad.grad(f), s2sad.grad(f, optimize=False))


@pytest.mark.parametrize("f", ONE_TRIANGLE, ids=ONE_TRIANGLE_IDS)
def test_its_forward_mode(f):
    v = np.array([0.2, 1.0, -0.5])
    _, push = s2sad.jvp(f)(X.copy())
    np.testing.assert_allclose(push(v), central_differences(f, (X,), 0) @ v,
                               rtol=1e-6, atol=1e-7)


HESSIANS = [eigvalsh_lower, cholesky_upper, scipy_solve_pos, pinv_hermitian, complex_eigvalsh]


@pytest.mark.parametrize("f", HESSIANS, ids=[f.__name__ for f in HESSIANS])
def test_its_hessian(f):
    want = central_differences(s2sad.grad(f), (X,), 0)
    np.testing.assert_allclose(s2sad.hessian(f)(X.copy()), want, rtol=1e-5, atol=1e-6)


def eigvalsh_of_argument(a):
    return np.sum(np.linalg.eigvalsh(a) * np.arange(3.0))


def test_the_gradient_in_a_matrix_argument():
    # a lopsided argument: its gradient lies in the lower triangle, each entry's own
    a = lopsided(X)
    want = central_differences(eigvalsh_of_argument, (a,), 0)
    got = s2sad.grad(eigvalsh_of_argument)(a.copy())
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert np.all(np.triu(got, 1) == 0.0)
    # a symmetric one: the symmetric gradient, exact along symmetric changes (as before)
    s = spd(X)
    got = s2sad.grad(eigvalsh_of_argument)(s.copy())
    np.testing.assert_allclose(got, got.T)
    want = central_differences(lambda b: eigvalsh_of_argument((b + b.T) / 2.0), (s,), 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# --- a chained assignment of a list or a dict: both names reach it ---------------------------


def chained_list(x):
    a = b = [x[0], x[1]]
    a[0] = x[2]
    return b[0] * b[1]


def chained_list_other_name(x):
    a = b = [x[0], x[1]]
    b[0] = x[2]
    return a[0] * a[1]


def chained_list_three(x):
    a = b = c = [x[0], x[1]]
    c[1] = x[2]
    return a[1] * b[0]


def chained_dict(x):
    a = b = {"u": x[0], "v": x[1]}
    a["u"] = x[2]
    return b["u"] * b["v"]


def chained_append(x):
    a = b = [x[0], x[1]]
    a.append(x[2])
    return b[2] * b[1]


def list_through_a_display(x):
    a = [x[0], x[1]]
    b = (a, 1.0)[0]
    a[0] = x[2]
    return b[0] * b[1]


def list_through_a_conditional(x):
    a = [x[0], x[1]]
    b = a if x[0] > 0 else [1.0, 2.0]
    a[0] = x[2]
    return b[0] * b[1]


def list_through_dict_get(x):
    a = [x[0], x[1]]
    d = {"k": a}
    e = d.get("k")
    a[1] = x[2]
    return e[1] * x[0]


CHAINED = [chained_list, chained_list_other_name, chained_list_three, chained_dict,
           chained_append, list_through_a_display, list_through_a_conditional,
           list_through_dict_get]


@pytest.mark.parametrize("f", CHAINED, ids=[f.__name__ for f in CHAINED])
def test_an_update_through_one_name_of_a_chained_assignment_is_refused(f):
    # (b[0] read as x[0], not x[2]: a gradient of [-0.71, 1.13, 0.0] for [0.0, 1.13, -0.71])
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="reaches too") as caught:
        s2sad.grad(f)(X.copy())
    line = next(t for t in inspect.getsource(f).splitlines()[1:] if "x[2]" in t)
    assert line.strip() in str(caught.value)


def chained_list_read_by_its_own_name(x):
    a = b = [x[0], x[1]]
    a[0] = a[0] * x[2]
    return a[0] * a[1]


def test_a_chained_list_updated_and_read_by_one_name_is_still_followed():
    check(chained_list_read_by_its_own_name, s2sad.grad(chained_list_read_by_its_own_name))



def default_argument_list(x):
    a = [x[0], x[1]]

    def get(items=a):
        return items[0] * items[1]
    a[0] = x[2]
    return get()


def lambda_default_argument_list(x):
    a = [x[0], x[1]]
    get = lambda items=a: items[0] * items[1]  # noqa: E731
    a[0] = x[2]
    return get()


@pytest.mark.parametrize("f", [default_argument_list, lambda_default_argument_list],
                         ids=["def", "lambda"])
def test_an_update_of_a_list_a_default_argument_holds_is_refused(f):
    # (the default is evaluated once, at the def: items is a's list; 0.0 for -0.71)
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="'get' reaches too"):
        s2sad.grad(f)(X.copy())


def default_argument_list_not_updated(x):
    a = [x[0], x[1]]

    def get(items=a):
        return items[0] * items[1]
    return get() + a[0]


def test_a_default_argument_list_not_updated_is_followed():
    check(default_argument_list_not_updated, s2sad.grad(default_argument_list_not_updated))


def partial_of_list(x):
    a = [x[0], x[1]]
    get = functools.partial(product_of_two, a)
    a[0] = x[2]
    return get()


def product_of_two(items):
    return items[0] * items[1]


def test_a_partial_of_a_list_updated_after_it_is_refused():
    """Python's partial holds the list itself, so ``get()`` sees ``a[0] = x[2]``; s2sad
    bound the list as it was (a silently wrong gradient): refused at the update."""
    with pytest.raises(s2sad.errors.UnsupportedSyntaxError, match="'get' reaches too"):
        s2sad.grad(partial_of_list)(X.copy())


def partial_of_list_read_before_the_update(x):
    a = [x[0], x[1]]
    get = functools.partial(product_of_two, a)
    y = get()
    a[0] = x[2]
    return y + a[0]


def test_a_partial_of_a_list_called_before_the_update():
    check(partial_of_list_read_before_the_update,
          s2sad.grad(partial_of_list_read_before_the_update))
