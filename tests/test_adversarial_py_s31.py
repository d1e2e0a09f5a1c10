"""Findings of the s31 adversarial pass on Python semantics (memory, views, aliasing,
mutation, evaluation order), each checked against float64 central differences, with the
test that fails without its fix:

* A nested ``def g(v, c=a)`` (or a lambda, a keyword-only default) or a
  ``functools.partial(f, a)`` keeps the array ``a`` itself: Python evaluates the default,
  or the bound argument, once, and a later ``a[0] = w`` or ``a += w`` is what ``g(x)``
  reads. s2sad read the value ``a`` had where ``g`` was made: a wrong value and gradient
  (-1.76 for -2.13). Refused at the update now, where ``g`` is called later and the
  value kept is not a number.
* A nested ``def`` or lambda reads the enclosing function's variables when it is called:
  ``def g(): return np.sum(a * K)``, then ``v = a[1:]; v[0] = w`` (or ``a[1] = w`` with
  ``g`` reading the view ``v``, or ``a += w``, or an array a dict holds), then ``g()``.
  The update was allowed (``a`` is not read after it in the function's own lines), and
  the gradient missed it ([1, 2, 3] for [2.48, 0, 3]; forward 0.7 for -1.004). A call
  of the def (or of a name holding it: ``h = g``, ``fs = [g]``) reads what its body
  reads now, so the update is refused.
* The same inside the def: ``def g(w): v = a[1:]; v[0] = w`` (``a`` the enclosing
  function's) changed ``a`` where s2sad did not see it: a wrong gradient ([1, 2, 3] for
  [2.48, 0, 3]). Refused at the update now.
* ``any(bump(l, v) > 0 for v in x)`` (also ``all``, ``next``, ``zip``, or a ``for``
  loop over the generator expression that breaks), where ``bump`` changes its argument:
  Python reads the generator lazily and stops early, so the later calls never run.
  s2sad built the whole list first: a wrong gradient ([1.16, 0.37, 0.37] for [0.74, 0,
  0]). Refused at the call now; ``sum``, ``list``, ``sorted``... (which read it whole
  first) are still followed.
* A comprehension in the condition of ``... if c else ...`` or of a ``while``
  (``1.0 if any(v > 1.0 for v in x) else 2.0``) was refused with ``local variable 'v'
  is used before it is assigned``: its own variable was read as the function's. It is
  differentiated now.
* A helper of the user's that returns an item of its ``*args`` or ``**kwargs``
  (``def first(*arrs): return arrs[0]``): its result is the caller's array, but s2sad
  took it for a new one, so ``f = first(a, x); a[0] = w`` then ``f`` read (or ``f[0] =
  w`` then ``a`` read) was allowed, and wrong ([1, 2, 3] for [0, 2, 5.26]). The items
  of ``*args`` and ``**kwargs`` are the caller's values now, as a named parameter's is.
* A view of a module's array updated in place (``v = BUF[:2]; v += x[:2]``, then
  ``BUF`` read): the update changed the module's array where s2sad did not see it, and
  the gradient was 0 for [1, 2, 0]. Refused now, as an update of ``BUF`` itself is.
* A refusal inside a method of an object made in the function (``b = Buffer()``, then
  ``b.put(x)`` doing ``self.data[:] = v``) was shown at a line counted from the class's
  first line (line 6 of the file for line 9: ``self.data = np.zeros(3)``, another
  method's line), and for a class of another module in the differentiated function's
  file. It names s2sad's variables (``'self__data'``, ``'lin__cache'``, ``Buf__put``),
  not the user's (``self.data``, ``lin.cache``, ``Buf.put``). All are the user's now.
* Other refusals named s2sad's temporaries or gave a list's advice for another value:
  ``random.Random(0).shuffle(l)`` said ``t_4.shuffle(...)``; ``d.pop("a")`` on a dict
  advised ``d = d[:-1]``; ``a[1:].sort()`` (a view of an array) advised building a list.
  They show ``.shuffle(...)``, a dict too, and ``a[1:] = np.sort(a[1:])`` now.
* The hint of ``an in-place update of 'r', which shares its memory with 'a'`` (``r =
  a.reshape(3, 1)``, ``v = a[1:]``) said ``Copy first (`r = a.copy()`)``: a copy of the
  other name, which changes ``r``'s shape or items. It says ``r = r.copy()`` now.

The probes that passed (right gradient, or refused at the user's line) are listed at the
end, in ``PASSED``.
"""

import functools
import random
import re

import numpy as np
import pytest
from test_higher_order import central_differences

import s2sad
from helpers_s31_module import Halving

X = np.array([0.37, -0.71, 1.13])
K = np.array([1.0, 2.0, 3.0])


def check(f):
    want = central_differences(lambda x: f(x.copy()), (X,), 0)
    for grad in (s2sad.grad(f), s2sad.grad(f, optimize=False)):
        np.testing.assert_allclose(grad(X.copy()), want, rtol=1e-6, atol=1e-7)
    v = np.array([0.2, 1.0, -0.5])
    _, push = s2sad.jvp(f)(X.copy())
    np.testing.assert_allclose(push(v), want @ v, rtol=1e-6, atol=1e-7)


def refused(f, *words):
    with pytest.raises(s2sad.errors.S2sadError) as info:
        s2sad.grad(f)(X.copy())
    text = str(info.value)
    assert __file__ in text
    for word in words:
        assert word in text, text


# --- a default argument or a partial keeps the array, and sees a later update ---------------

def default_then_setitem(x):
    a = x * 1.0

    def g(v, c=a):
        return np.sum(v * c)
    a[0] = x[1] * 3.0
    return g(x)


def default_view_then_setitem(x):
    a = x * 1.0

    def g(v, c=a[:2]):
        return np.sum(v[:2] * c)
    a[0] = x[1] * 3.0
    return g(x)


def default_then_augmented(x):
    a = x * 1.0

    def g(v, c=a):
        return np.sum(v * c)
    a += x ** 2
    return g(x)


def lambda_default_then_setitem(x):
    a = x * 1.0
    g = lambda v, c=a: np.sum(v * c)  # noqa: E731
    a[0] = x[1] * 3.0
    return g(x)


def keyword_only_default_then_setitem(x):
    a = x * 1.0

    def g(v, *, c=a):
        return np.sum(v * c)
    a[0] = x[1] * 3.0
    return g(x)


def dot_k(a, b):
    return np.sum(a * b)


def partial_then_setitem(x):
    a = x * 1.0
    h = functools.partial(dot_k, a)
    a[0] = x[1] * 3.0
    return h(x)


def partial_keyword_then_augmented(x):
    a = x * 1.0
    h = functools.partial(dot_k, b=a)
    a *= x
    return h(x)


def partial_of_numpy_then_setitem(x):
    a = x * 1.0
    h = functools.partial(np.dot, a)
    a[1] = x[2] ** 2
    return h(x)


KEPT = [default_then_setitem, default_view_then_setitem, default_then_augmented,
        lambda_default_then_setitem, keyword_only_default_then_setitem, partial_then_setitem,
        partial_keyword_then_augmented, partial_of_numpy_then_setitem]


@pytest.mark.parametrize("f", KEPT, ids=[f.__name__ for f in KEPT])
def test_an_array_kept_by_a_default_or_a_partial_then_updated_is_refused(f):
    refused(f, "evaluated where", "Update a copy")


def default_number_then_augmented(x):
    c0 = x[0] * 2.0

    def g(v, c=c0):
        return v * c
    c0 += x[1]
    return g(x[2]) + c0


def default_item_then_setitem(x):
    a = x * 1.0

    def g(v, c=a[0]):
        return v * c
    a[0] = x[1] * 3.0
    return g(x[2]) + np.sum(a * K)


def default_called_before_the_update(x):
    a = x * 1.0

    def g(v, c=a):
        return np.sum(v * c)
    r = g(x)
    a[0] = x[1] * 3.0
    return r + np.sum(a * K)


def default_copied(x):
    a = x * 1.0

    def g(v, c=a.copy()):
        return np.sum(v * c)
    a[0] = x[1] * 3.0
    return g(x) + np.sum(a * K)


def partial_then_rebound(x):
    a = x * 1.0
    h = functools.partial(dot_k, a)
    a = a * x
    return h(x) + np.sum(a)


STILL = [default_number_then_augmented, default_item_then_setitem,
         default_called_before_the_update, default_copied, partial_then_rebound]


@pytest.mark.parametrize("f", STILL, ids=[f.__name__ for f in STILL])
def test_a_default_or_partial_not_seeing_an_update_is_followed(f):
    check(f)


# --- a refusal in a method of an object made in the function: at the user's line ----------

class Buffer:
    def __init__(self):
        self.data = np.zeros(3)

    def put(self, v):
        self.data[:] = v
        return self.data


def method_updates_its_buffer(x):
    b = Buffer()
    first = b.put(x)
    return np.sum(first * K)


class Linear:
    def __init__(self, w):
        self.w = w
        self.seen = None

    def apply(self, v):
        self.seen = v
        return np.sum(self.w * v)


def method_keeps_its_input(x):
    lin = Linear(K)
    h = x * 2.0
    r = lin.apply(h)
    h[0] = x[2] ** 2
    return r + np.sum(lin.seen * x)


def method_of_another_module(x):
    k = Halving(x * 1.0)
    r = k.shrink(x)
    return r


def _line_of(function, text):
    import inspect
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_a_refusal_in_a_method_is_at_its_line():
    with pytest.raises(s2sad.errors.S2sadError) as info:
        s2sad.grad(method_updates_its_buffer)(X.copy())
    error = info.value
    assert error.lineno == _line_of(Buffer.put, "self.data[:] = v"), str(error)
    assert "self.data[:] = v" in str(error) and "Buffer.put" in str(error)
    assert "self__data" not in str(error) and "'self.data'" in str(error)


def test_a_refusal_in_a_method_of_another_module_is_in_its_file():
    import helpers_s31_module
    with pytest.raises(s2sad.errors.S2sadError) as info:
        s2sad.grad(method_of_another_module)(X.copy())
    error = info.value
    assert error.filename == helpers_s31_module.__file__, str(error)
    assert error.lineno == _line_of(Halving.shrink, "self.w *= 0.5"), str(error)
    assert "self.w *= 0.5" in str(error) and "Halving.shrink" in str(error)
    assert "k__w" not in str(error) and "'k.w'" in str(error)


def test_an_objects_attribute_is_named_as_written():
    with pytest.raises(s2sad.errors.S2sadError) as info:
        s2sad.grad(method_keeps_its_input)(X.copy())
    text = str(info.value)
    assert "'lin.seen'" in text and "lin__seen" not in text, text
    assert "`h = h.copy()`" in text, text


def reshaped_then_updated(x):
    a = x * 1.0
    r = a.reshape(3, 1)
    r[1, 0] = x[2] ** 2
    return np.sum(a * K)


def test_the_copy_hint_copies_the_name_updated():
    refused(reshaped_then_updated, "`r = r.copy()`")


# --- a nested def reads the enclosing variables when called: an update before is seen ------

def closure_then_view_updated(x):
    a = x * 1.0

    def g():
        return np.sum(a * K)
    v = a[1:]
    v[0] = x[0] ** 2
    return g()


def closure_of_a_view_then_base_updated(x):
    a = x * 1.0
    v = a[1:]

    def g():
        return np.sum(v * K[:2])
    a[1] = x[0] ** 2
    return g()


def closure_of_a_view_then_base_augmented(x):
    a = x * 1.0
    v = a[1:]

    def g():
        return np.sum(v * K[:2])
    a += x
    return g()


def lambda_then_view_updated(x):
    a = x * 1.0
    g = lambda: np.sum(a * K)  # noqa: E731
    v = a[1:]
    v[0] = x[0] ** 2
    return g()


def closure_held_by_another_name(x):
    a = x * 1.0

    def g():
        return np.sum(a * K)
    h = g
    v = a.reshape(3, 1)
    v[0, 0] = x[1] ** 2
    return h()


def closure_of_a_dict_holding_the_array(x):
    a = x * 1.0
    d = {"a": a}

    def g():
        return np.sum(d["a"] * K)
    a[0] = x[2] ** 2
    return g()


def closure_updates_a_view_of_the_enclosing_array(x):
    a = x * 1.0

    def g(w):
        v = a[1:]
        v[0] = w
        return 0.0
    g(x[0] ** 2)
    return np.sum(a * K)


def closure_augments_a_view_of_the_enclosing_array(x):
    a = x * 1.0

    def g(w):
        v = a[:2]
        v += w
        return 0.0
    g(x[2] ** 2)
    return np.sum(a * K)


CLOSURES = [closure_then_view_updated, closure_of_a_view_then_base_updated,
            closure_of_a_view_then_base_augmented, lambda_then_view_updated,
            closure_held_by_another_name, closure_updates_a_view_of_the_enclosing_array,
            closure_augments_a_view_of_the_enclosing_array]


@pytest.mark.parametrize("f", CLOSURES, ids=[f.__name__ for f in CLOSURES])
def test_an_update_a_nested_def_sees_is_refused(f):
    refused(f)


def closure_called_before_the_update(x):
    a = x * 1.0

    def g():
        return np.sum(a * K)
    r = g()
    v = a[1:]
    v[0] = x[0] ** 2
    return r + np.sum(v)


def closure_reads_the_base_updated_directly(x):
    a = x * 1.0

    def g():
        return np.sum(a * K)
    a[0] = x[1] ** 2
    return g()


def closure_updates_its_own_copy(x):
    a = x * 1.0

    def g(w):
        v = a[1:].copy()
        v[0] = w
        return np.sum(v)
    return g(x[0] ** 2) + np.sum(a * K)


# (closure_of_a_dict_holding_the_array: d["a"] is a, read so since session 36, held_items)
CLOSURES_FOLLOWED = [closure_called_before_the_update, closure_reads_the_base_updated_directly,
                     closure_updates_its_own_copy, closure_of_a_dict_holding_the_array]


@pytest.mark.parametrize("f", CLOSURES_FOLLOWED, ids=[f.__name__ for f in CLOSURES_FOLLOWED])
def test_a_nested_def_not_seeing_an_update_is_followed(f):
    check(f)


# --- a generator expression read lazily: its calls run as it is read ---------------------

def bump(lst, v):
    lst.append(v)
    return v


def any_stops_early(x):
    l = []
    r = any(bump(l, v) > 0 for v in x)
    return sum(l) * x[0] + len(l) + r


def all_stops_early(x):
    l = []
    r = all(bump(l, v) > 0 for v in x)
    return sum(l) * x[2] + len(l) + r


def loop_breaks_early(x):
    l = []
    s = 0.0
    for v in (bump(l, w * 2.0) for w in x):
        s = s + v
        if v > 0:
            break
    return s + sum(l) * x[2]


def zip_stops_early(x):
    l = []
    s = 0.0
    for a, b in zip((bump(l, v) for v in x), [1.0, 2.0]):
        s = s + a * b
    return s + sum(l) * x[2]


LAZY = [any_stops_early, all_stops_early, loop_breaks_early, zip_stops_early]


@pytest.mark.parametrize("f", LAZY, ids=[f.__name__ for f in LAZY])
def test_a_changing_call_in_a_generator_read_lazily_is_refused(f):
    refused(f, "generator expression read by", "bump()")


def sum_reads_whole(x):
    l = []
    s = sum(bump(l, v * v) for v in x)
    return s * len(l) + l[0]


def sorted_reads_whole(x):
    l = []
    s = sorted(bump(l, v * 2.0) for v in x)
    return s[0] + 2.0 * s[2] + sum(l) * x[1]


def any_of_a_pure_generator(x):
    r = any(v > 1.0 for v in x)
    return x[0] * (2.0 if r else 3.0)


def conditional_of_a_comprehension(x):
    return x[0] * (1.0 if any(v > 1.0 for v in x) else 2.0) + \
        x[1] * (3.0 if sum(v * v for v in x) > 1.0 else 4.0)


def while_over_a_comprehension(x):
    s = x * 1.0
    while all(v < 5.0 for v in s):
        s = s * 2.0
    return np.sum(s * K)


WHOLE = [sum_reads_whole, sorted_reads_whole, any_of_a_pure_generator,
         conditional_of_a_comprehension, while_over_a_comprehension]


@pytest.mark.parametrize("f", WHOLE, ids=[f.__name__ for f in WHOLE])
def test_a_generator_read_whole_or_pure_is_followed(f):
    check(f)


# --- refusals in the user's words -----------------------------------------------------------

def shuffle_of_a_value_made_on_the_line(x):
    l = [x[0], x[1], x[2]]
    random.Random(0).shuffle(l)
    return l[0] + 2.0 * l[1] + 3.0 * l[2]


def pop_of_a_dict(x):
    d = {"a": x[0], "b": x[1]}
    v = d.pop("a")
    return v * sum(d.values())


def sort_of_a_slice(x):
    a = x * K
    a[1:].sort()
    return a[0] + 2.0 * a[1] + 3.0 * a[2]


@pytest.mark.parametrize("f, shown, hidden", [
    (shuffle_of_a_value_made_on_the_line, ".shuffle(...) is given 'l'", r"\bt_\d+\."),
    (pop_of_a_dict, "or dict", None),
    (sort_of_a_slice, "`a[1:] = np.sort(a[1:])`", r"Give the list a name"),
], ids=["shuffle", "dict-pop", "slice-sort"])
def test_a_refusal_in_the_users_words(f, shown, hidden):
    with pytest.raises(s2sad.errors.S2sadError) as info:
        s2sad.grad(f)(X.copy())
    text = str(info.value)
    assert shown in text, text
    assert hidden is None or not re.search(hidden, text), text


# --- *args and **kwargs hold the caller's values ------------------------------------------

def first_of(*arrs):
    return arrs[0]


def keyword_a(**kw):
    return kw["a"]


def star_result_then_base_updated(x):
    a = x * 1.0
    f = first_of(a, x)
    a[0] = x[2] ** 2
    return np.sum(f * K)


def star_result_updated(x):
    a = x * 1.0
    f = first_of(a, x * 2.0)
    f[0] = x[2] ** 2
    return np.sum(a * K)


def keyword_result_then_base_updated(x):
    a = x * 1.0
    f = keyword_a(a=a)
    a[0] = x[2] ** 2
    return np.sum(f * K)


def spread_dict_result_then_base_updated(x):
    a = x * 1.0
    f = keyword_a(**{"a": a})
    a[0] = x[2] ** 2
    return np.sum(f * K)


STARS = [star_result_then_base_updated, star_result_updated,
         keyword_result_then_base_updated, spread_dict_result_then_base_updated]


@pytest.mark.parametrize("f", STARS, ids=[f.__name__ for f in STARS])
def test_an_item_of_star_args_is_the_callers_array(f):
    refused(f, "shares its memory")


def star_result_read_before_the_update(x):
    a = x * 1.0
    f = first_of(a, x)
    r = np.sum(f * K)
    a = a * x
    return r + np.sum(a)


def star_result_of_new_values(x):
    f = first_of(x * 2.0, x * 3.0)
    f[0] = x[2] ** 2
    return np.sum(f * K)


@pytest.mark.parametrize("f", [star_result_read_before_the_update, star_result_of_new_values],
                         ids=["read-before", "new-values"])
def test_star_args_not_shared_after_are_followed(f):
    check(f)


# --- a view of a module's array, updated --------------------------------------------------

BUFFER = np.zeros(3)


def module_view_augmented(x):
    v = BUFFER[:2]
    v += x[:2]
    return np.sum(BUFFER * K)


def module_view_set(x):
    b = np.asarray(BUFFER)
    b[1] = x[2] ** 2
    return np.sum(BUFFER * x)


@pytest.mark.parametrize("f", [module_view_augmented, module_view_set],
                         ids=["augmented", "set"])
def test_an_update_of_a_view_of_a_modules_array_is_refused(f):
    before = BUFFER.copy()
    refused(f, "the module's 'BUFFER'")
    np.testing.assert_array_equal(BUFFER, before)


def module_view_copied(x):
    v = BUFFER[:2].copy()
    v += x[:2]
    return np.sum(v * K[:2]) + np.sum(BUFFER)


def test_a_copy_of_a_modules_array_is_followed():
    check(module_view_copied)


# --- probes that passed: right gradient (float64 central differences, reverse, forward and
# optimize=False), or refused at the user's line --------------------------------------------

PASSED = (
    "views then updated: slices, .T, .mT, .real/.imag, reshape/ravel (view or copy), "
    "a[...], a[()], a[None], a[..., 0] (0-d view), .view(), np.split/array_split, flipud, "
    "rot90, squeeze, atleast_1d, ascontiguousarray, asarray/asanyarray/array(copy=False or "
    "None), astype(copy=False), require, ravel(order='K'), np.real of a real array, rows "
    "unpacked, list(m), rows in comprehensions, sorted(m), enumerate/zip over rows: "
    "refused; broadcast_to, x.flat, as_strided: refused (no rule)",
    "in-place calls on names and on items or slices (a[1:].sort(), m[0].fill(v), "
    "d['a'].sort(), a.reshape(3, 1).fill(v)), np.add/subtract/maximum/negative.at, np.put, "
    "np.fill_diagonal (also of m[:2, :2]), ndarray.sort/resize/partition/put/fill, "
    "operator.iadd/setitem, __setitem__/__iadd__, getattr(a, 'sort')(), rng.shuffle, "
    "clip(out=a): refused; np.copyto(a[1:], v) and ufunc out=a[1:]: right",
    "lists, dicts and tuples holding arrays (l[0][1] = v, d['a'] += x, t[0][:] += x), a "
    "buffer appended in a loop, a list repeated ([z] * 2), l *= 2 and l += [..] with "
    "another name, del, pop/insert, remove, reverse, dict update/setdefault/|=: refused "
    "or right",
    "evaluation order: a call that appends in the middle of an expression, call arguments, "
    "list and dict displays, chained comparisons, and/or and ... if ... else with side "
    "effects, targets stored left to right (i, a[i] = 1, v; i = l[i] = 1; for a[0] in x; "
    "for i, a[i] in enumerate(x)), row and slice swaps: right or refused",
    "objects: a layer class caching its input then the input updated, a method returning "
    "its buffer, a method updating self.w in place, a namedtuple holding an array, an "
    "object's attribute updated through another name, dataclasses and properties: "
    "refused at the user's line; closures read late, defaults captured early, "
    "generators of the user's read by a loop that changes their list: refused",
    "dtypes: a float stored into an int or bool array (truncated), np.array(..., "
    "dtype=int), asarray(dtype=np.int32), np.full of ints then set, np.matrix and "
    "np.ma: refused; SciPy's overwrite_a/overwrite_b=True: refused",
)
