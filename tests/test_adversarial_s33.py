"""Findings of the s33 adversarial pass on Python and NumPy features s2sad may take to be
harmless (odd calls, mutation and aliasing, generators and iteration, numbers), each
checked against float64 central differences, with the test that fails without its fix:

* SILENTLY WRONG: ``b = x > 0; np.sum((b + b) * x ** 2)``. NumPy adds booleans with a
  logical or (``b + b`` is ``b``), but the last spelling pass folded ``b + b`` into
  ``2 * b``: the gradient was ``4x`` for ``2x`` (1.2 for 0.6 at 0.3), the value returned by
  ``value_and_grad`` doubled (9.98 for 4.99), ``jvp`` and ``hvp`` doubled too. Also a
  ``np.bool_`` number, ``c = b + b; c = c + b``, and a helper ``def twice(m): return m +
  m`` given ``x > 0``. Like terms now fold ``e + e`` only
  where ``e`` reads a sensitivity (float or complex).
* SILENTLY WRONG: ``u`` uint8, ``np.sum((-u - 2.0 * u) * x)``. ``-u`` wraps (255 for 1),
  so the slope is 253; the fold to ``-3.0 * u`` gave -3. ``-u - u`` crashed in the
  generated code (``-2 * u``: "Python integer -2 out of bounds for uint8"). A sign taken
  off a term without a float constant folds only on a sensitivity now.
* SILENTLY WRONG: ``u`` uint8, ``np.sum((u ** 1.0 + 200) * x)``. ``u ** 1.0`` is a float,
  but the simplifier dropped ``** 1.0``: ``u + 200`` wrapped (44 for 300). A boolean
  ``b ** 1`` is an int too (``b ** 1 + b ** 1`` is 2, ``b + b`` True). ``x ** 1`` (the
  int) drops only as a number's factor now (``2 * x ** 1``, the slope of ``x ** 2``).

* SILENTLY WRONG: ``y = np.log(x); np.nan_to_num(y, copy=False); np.sum(y * 3.0)``.
  With ``copy=False`` NumPy replaces ``y``'s NaN in ``y`` itself, a constant 0 there:
  slope 0 where ``x < 0``. s2sad took the call's result as unused (or, with ``z = ...``
  and ``y`` read, read the changed ``y`` for its rule's mask): ``3 / x`` (-2.5 for 0). A
  registry fact, ``uncopied_mutates``, says it writes into its argument when not copying:
  refused at its line, with ``y = np.nan_to_num(y)`` as the advice.
* SILENTLY WRONG: ``float(f"{x[2]}") * x[0]``. An f-string was a constant, so the number
  read back from it was too: 0 for 0.3 in ``x[2]``'s slot (``str(v)`` and
  ``format(v)`` are refused). An f-string formatting a differentiated value now has no
  rule: refused where the string reaches the output, as ``str`` is; printed, or in a
  ``raise``, it is fine.

The programs surveyed, right or refused at the user's line, are listed in ``SURVEYED``.
"""

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences

X = np.array([0.3, -1.2, 2.1, 0.7])


def _check(f, x=X):
    got = s2sad.grad(f)(x.copy())
    want = central_differences(f, (x.copy(),), 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    value, _ = s2sad.value_and_grad(f)(x.copy())
    assert value == pytest.approx(f(x.copy()), rel=1e-12)
    v = np.random.default_rng(33).standard_normal(x.shape)
    _, push = s2sad.jvp(f)(x.copy())
    assert push(v) == pytest.approx(float(np.dot(want, v)), rel=1e-6, abs=1e-6)
    return got


# --- booleans added: a logical or -----------------------------------------------------------


def bool_twice(x):
    b = x > 0
    return np.sum((b + b) * x ** 2)


def bool_number_twice(x):
    b = np.bool_(x[0] > 0)
    return (b + b) * x[0] ** 2


def bool_twice_then_once(x):
    b = x > 0
    c = b + b
    c = c + b
    return np.sum(c * x ** 2)


def _twice(m):
    return m + m


def bool_twice_in_a_helper(x):
    return np.sum(_twice(x > 0) * x ** 2)


def bool_to_the_first(x):
    b = x > 0
    c = b ** 1
    return np.sum((c + c) * x ** 2)


@pytest.mark.parametrize("f", [bool_twice, bool_number_twice, bool_twice_then_once,
                               bool_twice_in_a_helper, bool_to_the_first])
def test_booleans_added_are_a_logical_or(f):
    got = _check(f)
    assert f is bool_to_the_first or got[0] == pytest.approx(0.6)


def test_the_hessian_of_booleans_added():
    got = s2sad.hvp(bool_twice)(X.copy(), np.ones(4))
    np.testing.assert_allclose(got, 2.0 * (X > 0))


# --- unsigned ints negated: they wrap -------------------------------------------------------


def unsigned_negated_minus_float(x):
    u = np.array([1, 2, 3, 4], dtype=np.uint8)
    return np.sum((-u - 2.0 * u) * x)


def unsigned_negated_minus_itself(x):
    u = np.array([1, 2, 3, 4], dtype=np.uint8)
    return np.sum((-u - u) * x)


def test_an_unsigned_int_negated_wraps():
    got = _check(unsigned_negated_minus_float)
    np.testing.assert_array_equal(got, [253.0, 250.0, 247.0, 244.0])


def test_an_unsigned_int_negated_twice_runs():
    got = _check(unsigned_negated_minus_itself)
    np.testing.assert_array_equal(got, [254.0, 252.0, 250.0, 248.0])


# --- a power of one keeps the type its base does not have ----------------------------------


def unsigned_to_the_float_one(x):
    u = np.array([100, 200, 30, 4], dtype=np.uint8)
    v = u ** 1.0 + 200
    return np.sum(v * x)


def bool_to_the_float_one(x):
    b = x > 0
    c = b ** 1.0
    return np.sum((c + c) * x)


def test_a_float_power_of_one_is_a_float():
    got = _check(unsigned_to_the_float_one)
    np.testing.assert_array_equal(got, [300.0, 400.0, 230.0, 204.0])
    _check(bool_to_the_float_one)


def test_like_terms_of_sensitivities_still_fold():
    """The folds kept where they are exact: ``x * x * x``'s slope is one product."""
    def cube(x):
        return x * x * x
    g = s2sad.grad(cube)
    assert "3.0 * (x * x)" in g.source_for(0.5)
    assert g(0.5) == pytest.approx(0.75)


# --- np.nan_to_num(y, copy=False) writes into y --------------------------------------------


def nan_to_num_in_place(x):
    y = np.log(x)
    np.nan_to_num(y, copy=False)
    return np.sum(y * 3.0)


def nan_to_num_in_place_kept(x):
    y = np.log(x)
    z = np.nan_to_num(y, copy=False)
    return np.sum(y * 3.0) + np.sum(z)


def nan_to_num_in_place_by_position(x):
    y = np.log(x)
    z = np.nan_to_num(y, False)
    return np.sum(z * z)


@pytest.mark.parametrize("f", [nan_to_num_in_place, nan_to_num_in_place_kept,
                               nan_to_num_in_place_by_position])
def test_nan_to_num_without_a_copy_is_refused_at_its_line(f):
    with pytest.warns(RuntimeWarning):
        want = central_differences(f, (X.copy(),), 0)
    assert want[1] == 0.0  # (the log's NaN replaced by a constant)
    x = X.copy()
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="changes 'y' in place") as caught:
        s2sad.grad(f)(x)
    assert "np.nan_to_num(y, copy=False)" in str(caught.value) or \
        "np.nan_to_num(y, False)" in str(caught.value)
    assert "y = np.nan_to_num(y)" in str(caught.value)
    np.testing.assert_array_equal(x, X)


def nan_to_num_copied(x):
    y = np.log(x)
    z = np.nan_to_num(y, copy=True) + np.nan_to_num(y, True) + np.nan_to_num(y)
    return np.sum(z * 3.0)


def test_nan_to_num_with_a_copy_is_followed():
    with np.errstate(invalid="ignore"):
        got = s2sad.grad(nan_to_num_copied)(X.copy())
        want = central_differences(nan_to_num_copied, (X.copy(),), 0)
    np.testing.assert_allclose(got, want, rtol=1e-6)


# --- an f-string read back as a number --------------------------------------------------------


def f_string_read_back(x):
    return float(f"{x[2]}") * x[0]


def f_string_into_an_array(x):
    return np.sum(np.array([f"{x[2]}", "1.5"], dtype=float)) * x[0]


def f_string_joined(x):
    s = f"{x[2]}" + "0"
    return np.float64(s) * x[0]


@pytest.mark.parametrize("f", [f_string_read_back, f_string_into_an_array, f_string_joined])
def test_an_f_string_of_a_differentiated_value_read_back_is_refused(f):
    assert central_differences(f, (X.copy(),), 0)[2] == pytest.approx(0.3)
    with pytest.raises(s2sad.NoDerivativeError, match="formatted into a string") as caught:
        s2sad.grad(f)(X.copy())
    assert 'f"{x[2]}"' in str(caught.value)


def f_string_printed(x):
    print(f"x0 = {x[0]:.3f}, shape {x.shape}", end="")
    if x[0] > 100:
        raise ValueError(f"too large: {x[0]}")
    return x[0] * x[1] + len(f"{len(x)}")


def test_an_f_string_printed_or_raised_is_fine(capsys):
    got = _check(f_string_printed)
    np.testing.assert_allclose(got, [X[1], X[0], 0.0, 0.0])
    assert "x0 = 0.300" in capsys.readouterr().out


SURVEYED = {
    "right": """np.vectorize (closures, otypes, signature, excluded) np.apply_along_axis
        np.piecewise (closures, constants) x.T.copy(order='F') np.broadcast_to(...).copy()
        x.item(i) float(x[0]) int(x[0]) round() astype(int/bool/float32) np.r_ np.c_ np.s_
        np.ix_ np.mgrid np.ogrid np.array([mixed]) np.array(x, ndmin=2/dtype=int/complex)
        list(x) tuple(x) sorted(x, key=abs, reverse=True) max(x, key=) max/min of numbers
        functools.partial (np and user functions, keywords) functools.reduce
        operator.itemgetter/attrgetter/mul map(operator.mul, a, b) map(np.sin, x)
        sum(start=) dict.get dict.setdefault zip(*pairs) any() all() np.copyto(y, e)
        y[1:] += y[:-1] y[[0, 1]] = y[[1, 0]] m += m.T a[[0, 0, 1]] += v G.fill (global)
        generator functions, yield from, enumerate(start=) zip of unequal lengths
        itertools.accumulate/chain/pairwise for-else while-else break in nested loops
        late binding: a generator expression or closure reading a name rebound later
        complex arguments (angle, imag, vdot, exp, sqrt, log, powers, inv, fft, sort,
        maximum) np.float32 numbers, Python ints, //, %, divmod, ** of negative bases,
        abs at 0, np.sign, np.maximum at ties (half each), clip at a bound (documented),
        math.floor/ceil/trunc, np.round/np.rint, bool arithmetic, int8/uint8/int32
        arithmetic that wraps, Python float arguments (math.* functions, min/max,
        ternaries, chained comparisons)""".split(),
    "refused": """np.frompyfunc np.apply_over_axes np.nditer x.flat (read, write, iterate)
        as_strided x.view() and view writes asfortranarray/ascontiguousarray/require/
        asarray/np.array(copy=None)/x.base/atleast_1d/squeeze/real/[...]/[None] then
        writes np.frombuffer np.fromiter np.broadcast_arrays in-place updates of an
        argument (x *= 2, x[0] = 1, x.sort(), np.add(x, 1, out=x), f(a, a) written,
        a mutable default) assignment into a global or module dict an object's array
        written by a method np.place/putmask/put/fill_diagonal/copyto(where=)/add.at
        x.fill x.resize x.sort x.partition rng.shuffle list.sort a list of a value
        repeated ([v] * 3) l.count filter(lambda) itertools.islice/starmap/groupby
        next(it, default) reversed(x) a generator read twice, or its .send()
        with-statements (np.errstate, warnings.catch_warnings) := recursion of a
        nested function lambdas as values a def inside a block set(x) complex()
        cmath math.remainder math.lgamma (-x) ** 0.5 of a Python float""".split(),
}
