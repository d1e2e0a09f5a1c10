"""Aliasing through the user's own functions (session 35).

An inlined helper that stores a value it is given (``lst.append(a)``, ``d[k] = a``) makes
the caller's list hold that value's memory. Before, the caller did not know it:
``keep(kept, y); y[1] = x[1]; ... kept[0] ...`` gave a silently wrong gradient (the write to
``y`` not seen through ``kept[0]``). Now what the helper stored is carried back to the
caller (``Aliasing.carry_back``), and the update is refused at the user's line, naming the
variable read later and the helper that stored it, as ``kept.append(y)`` written in the
function is. Also fixed here (silently wrong, or crashing, before):

* ``p = (y, 2.0); t, c = p; y[1] = v``: the refusal waited on the first name read later
  (``c``, a number) and was dropped; it waits on every one now.
* ``PUSH(x * 2.0); ... STORE[-1]``, ``PUSH`` a module's closure appending to its own
  list ``STORE``: the inlined ``store.append(a)`` was not known to change ``STORE``
  (read as a constant: a zero gradient); refused now, as ``STORE.append(h)`` is. So is
  a helper's mutable default list appended to and read back (``def keep(a, lst=[])``).
* A class's list (``items = []`` in its body), appended to through the class
  (``Registry.items.append(v)``) or through an instance's method s2sad does not inline
  (``r = Registry(); r.add(v)``), then read back: a zero gradient; refused now (a class of
  the user's holding a list, dict, set or array is state, as a module's list is).
* ``c.put(v); c.get()``, an object made here keeping a list: a TypeError in the reverse
  sweep (the 0.0 of an unread part indexed); followed now.
* ``kept.append(inner); inner.append(v); ... kept[0][0]``: ``inner.append`` was not seen
  through ``kept`` (a list in a list); refused now, as ``kept = [inner]`` was.

Every gradient is checked against central differences in float64, and the arguments are
left as Python leaves them. ``SURVEYED`` lists the sweep of the neighbourhood.

A helper that returns its argument or a constant view of it (``def first(a): return
a[0]``) is written as that before ``view_writes`` (``r = first(y)`` is ``r = y[0]``), so a
write through ``r`` or into ``y`` is followed, as it is written without the helper
(refused before).
"""

import functools

import numpy as np
import pytest

import s2sad
from s2sad.errors import UnsupportedSyntaxError
from test_higher_order import central_differences

X = np.array([0.3, 1.1, -0.7, 0.5])
W = np.arange(4.0)


def _check(f, args=(X,), wrt=0):
    """The gradient against central differences; the arguments as Python leaves them."""
    given = [np.copy(a) for a in args]
    got = s2sad.grad(f, wrt=wrt)(*given)
    want = central_differences(f, [np.copy(a) for a in args], wrt)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    python = [np.copy(a) for a in args]
    f(*python)
    for mine, pythons in zip(given, python, strict=True):
        np.testing.assert_array_equal(mine, pythons)


def _refused(f, line: str, *words: str):
    """Refused at the user's ``line``, its message saying each of ``words``."""
    with pytest.raises(UnsupportedSyntaxError) as info:
        s2sad.grad(f)(np.copy(X))
    assert info.value.text.strip() == line
    message = str(info.value)
    for word in words:
        assert word in message, message


# --- helpers that store what they are given ---------------------------------------------


def keep(lst, a):
    lst.append(a)


def nested_keep(lst, a):
    keep(lst, a)


def keep_view(lst, a):
    lst.append(a[1:])


def mk_and_keep(lst):
    z = np.zeros(4)
    lst.append(z)
    return z


def pair(a):
    return a, 2.0


def kept_then_written(x):
    y = np.zeros(4)
    kept = []
    keep(kept, y)
    y[1] = x[1]
    return np.sum(kept[0] * W) * x[2]


def kept_then_view_written(x):
    y = np.zeros(4)
    kept = []
    keep(kept, y)
    v = y[1:]
    v[0] = x[1]
    return np.sum(kept[0] * W) * x[2]


def kept_then_added(x):
    y = x * 1.0
    kept = []
    keep(kept, y)
    y += x
    return np.sum(kept[0] * W)


def kept_by_partial(x):
    y = np.zeros(4)
    kept = []
    p = functools.partial(keep, kept)
    p(y)
    y[1] = x[1]
    return np.sum(kept[0] * W) * x[2]


def kept_new_array(x):
    kept = []
    z = mk_and_keep(kept)
    z[1] = x[1]
    return np.sum(kept[0] * W) * x[2]


def kept_two_deep(x):
    y = np.zeros(4)
    kept = []
    nested_keep(kept, y)
    y[1] = x[1]
    return np.sum(kept[0] * W) * x[2]


def kept_view_of(x):
    y = np.zeros(4)
    kept = []
    keep_view(kept, y)
    y[1] = x[1]
    return np.sum(kept[0] * W[1:]) * x[2]


def kept_read_both(x):
    y = np.zeros(4)
    kept = []
    keep(kept, y)
    y[1] = x[1]
    return np.sum(kept[0] * W) * x[2] + np.sum(y * W)


def kept_in_loop(x):
    kept = []
    y = np.zeros(4)
    for i in range(2):
        keep(kept, y)
    y[1] = x[1]
    return np.sum(kept[1] * W) * x[2]


def kept_by_closure(x):
    y = np.zeros(4)
    kept = []

    def g(lst):
        lst.append(y)
    g(kept)
    y[1] = x[1]
    return np.sum(kept[0] * W) * x[2]


def kept_list_in_list(x):
    kept = []
    inner = []
    keep(kept, inner)
    inner.append(x * 2.0)
    return np.sum(kept[0][0] * W)


def returned_in_tuple(x):
    y = np.zeros(4)
    t, c = pair(y)
    y[1] = x[1]
    return np.sum(t * W) * x[2] * c


def tuple_unpacked(x):
    y = np.zeros(4)
    p = (y, 2.0)
    t, c = p
    y[1] = x[1]
    return np.sum(t * W) * x[2] * c


def list_in_list(x):
    kept = []
    inner = []
    kept.append(inner)
    inner.append(x * 2.0)
    return np.sum(kept[0][0] * W)


def _closure_and_list():
    store = []

    def push(a):
        store.append(a)
    return push, store


PUSH, STORE = _closure_and_list()


def pushed_then_read(x):
    PUSH(x * 2.0)
    r = np.sum(STORE[-1] * W)
    STORE.pop()
    return r


def pushed_then_written(x):
    y = np.zeros(4)
    PUSH(y)
    y[1] = x[1]
    r = np.sum(STORE[-1] * W) * x[2]
    STORE.pop()
    return r


def test_a_helpers_closure_list_read_again():
    """``PUSH``, a module's closure appending to its own list, read back through the
    module's ``STORE``: the inlined helper's ``store`` is the same list (read as a
    constant before: a zero gradient). Refused at the helper's line, with the call."""
    for f in (pushed_then_read, pushed_then_written):
        with pytest.raises(s2sad.errors.DifferentiationError) as info:
            s2sad.grad(f)(np.copy(X))
        assert "does not own" in str(info.value)
        assert info.value.text.strip() == "store.append(a)"
        assert "PUSH(" in str(info.value)
        assert STORE == []


def keep_in_default(a, lst=[]):  # noqa: B006 (the mutable default is the point)
    lst.append(a)
    return lst


def kept_in_default(x):
    kept = keep_in_default(x * 2.0)
    return np.sum(kept[-1] * W)


def test_a_helpers_mutable_default_read_again():
    """A helper's mutable default list (Python's one list for every call), appended to
    and read back through the result: read as a constant before (a zero gradient)."""
    with pytest.raises(s2sad.errors.DifferentiationError) as info:
        s2sad.grad(kept_in_default)(np.copy(X))
    assert "does not own" in str(info.value)
    assert info.value.text.strip() == "lst.append(a)"


# (the function, its line refused, what the message says): each silently wrong before
SILENTLY_WRONG_BEFORE = [
    (kept_then_written, "y[1] = x[1]", ("'y'", "'kept'", "keep() stored it there")),
    (kept_then_view_written, "v[0] = x[1]", ("'kept'", "keep() stored it there")),
    (kept_then_added, "y += x", ("`y += ...`", "'kept'", "keep() stored it there")),
    (kept_by_partial, "y[1] = x[1]", ("'kept'", "keep() stored it there")),
    (kept_new_array, "z[1] = x[1]", ("'z'", "'kept'", "mk_and_keep() stored it there")),
    (kept_two_deep, "y[1] = x[1]", ("'kept'", "nested_keep() stored it there")),
    (kept_view_of, "y[1] = x[1]", ("'kept'", "keep_view() stored it there")),
    (kept_read_both, "y[1] = x[1]", ("'kept'", "keep() stored it there")),
    (kept_in_loop, "y[1] = x[1]", ("'kept'", "keep() stored it there")),
    (kept_by_closure, "y[1] = x[1]", ("'kept'", "g() stored it there")),
    (kept_list_in_list, "inner.append(x * 2.0)", ("'kept' reaches too",)),
    (returned_in_tuple, "y[1] = x[1]", ("'y'", "'t'")),
    (list_in_list, "inner.append(x * 2.0)", ("'kept' reaches too",)),
]


@pytest.mark.parametrize("f, line, words", SILENTLY_WRONG_BEFORE,
                         ids=[f.__name__ for f, _, _ in SILENTLY_WRONG_BEFORE])
def test_refused_where_silently_wrong_before(f, line, words):
    _refused(f, line, *words)


# --- what is still followed ----------------------------------------------------------


def kept_after_write(x):
    y = np.zeros(4)
    y[1] = x[1]
    kept = []
    keep(kept, y)
    return np.sum(kept[0] * W) * x[2] + y[1]


def kept_read_y_only(x):
    y = np.zeros(4)
    kept = []
    keep(kept, y)
    y[1] = x[1]
    return np.sum(y * W) * x[2]


def kept_copy(x):
    y = np.zeros(4)
    kept = []
    keep(kept, y.copy())
    y[1] = x[1]
    return np.sum(kept[0] * W) * x[2] + np.sum(y * W)


def kept_number(x):
    kept = []
    c = x[1] * 2.0
    keep(kept, c)
    c += 1.0
    return kept[0] * x[2] + c


def kept_argument(x):
    kept = []
    keep(kept, x)
    return np.sum(kept[0] * W)


def kept_each_new(x):
    kept = []
    for i in range(2):
        y = x * float(i + 1)
        keep(kept, y)
    return np.sum(kept[0] * W) + np.sum(kept[1] * kept[0])


def rows_in_loop(x):
    rows = []
    for i in range(2):
        row = []
        row.append(x[i] * 2.0)
        row.append(x[i + 1])
        rows.append(row)
    return rows[0][0] * rows[1][1] + rows[1][0]


def pair_not_written(x):
    y = x * 2.0
    t, c = pair(y)
    return np.sum(t * W) * c


def ident(a):
    return a


def first(a):
    """The first row."""
    return a[0]


def flipped(a):
    return a.T


def tail(a):
    return a[1:, ::-1]


def ident_written(x):
    y = np.zeros(4)
    z = ident(y)
    z[1] = x[1]
    return np.sum(y * W) * x[2]


def ident_original_written(x):
    y = np.zeros(4)
    z = ident(y)
    y[1] = x[1]
    return np.sum(z * W) * x[2]


def first_row_written(x):
    y = np.zeros((2, 4))
    r = first(y)
    r[1] = x[1]
    return np.sum(y[0] * W) * x[2]


def first_original_written(x):
    y = np.zeros((2, 4))
    r = first(y)
    y[0, 1] = x[1]
    return np.sum(r * W) * x[2]


def flipped_written(x):
    y = np.zeros((2, 4))
    r = flipped(y)
    r[1, 0] = x[1]
    return np.sum(y[0] * W) * x[2]


def tail_written(x):
    y = np.zeros((3, 4))
    r = tail(y)
    r[0, 0] = x[1]
    return np.sum(y * x) * x[2]


def first_written_both_ways(x):
    y = np.zeros((2, 4))
    y[0, 0] = x[0]
    r = first(y)
    r[1] = x[1] * r[0]
    y[0, 2] = r[1] * x[2]
    return np.sum(r * W) + np.sum(y * y)


def flipped_written_both_ways(x):
    y = np.zeros((4, 2))
    t = flipped(y)
    t[1, 2] = x[1]
    y[0, 0] = t[1, 2] * x[0]
    return np.sum(y * y) + np.sum(t[1] * W)


def ident_in_loop(x):
    y = np.zeros(4)
    for i in range(3):
        z = ident(y)
        z[i] = z[i] + x[i]
    return np.sum(y * y * W)


FOLLOWED = [ident_written, ident_original_written, first_row_written,
            first_original_written, flipped_written, tail_written, kept_after_write,
            kept_read_y_only, kept_copy, kept_number, kept_argument, kept_each_new,
            rows_in_loop, pair_not_written, first_written_both_ways,
            flipped_written_both_ways, ident_in_loop,
            tuple_unpacked]  # (refused in session 35; t, c = p is t, c = y, 2.0 since 36)


@pytest.mark.parametrize("f", FOLLOWED, ids=[f.__name__ for f in FOLLOWED])
def test_followed(f):
    _check(f)


# The sweep (helpers storing, returning or viewing their arguments; closures, partials,
# lambdas, generators, methods, class attributes, zip/enumerate/list, tuple unpacking,
# np.asarray / np.array(copy=False) / reshape, out= aliases, += on aliases): each right
# or refused at the user's line after this session. "refused" cases that were refused
# before too are not repeated as tests here.
SURVEYED = """
keep(kept, y) then y[1] = v / v = y[1:]; v[0] = ... / y += ... / partial / nested helper /
    helper making and storing an array / storing a view / in a loop / closure storing
    an enclosing value: refused (silently wrong before)
a helper returning its argument in a tuple; t, c = (y, 2.0) via a name: refused (wrong before)
kept.append(inner); inner.append(v), also through keep(): refused (wrong before)
putd(d, k, y): refused (an in-place update of the argument 'd': too strict, sound)
ident(y) written / y written after ident; first(y) = y[0] written: followed (refused
    before); ident(y) then z += ... / np.add(b, x, out=b): refused; wrap(y) -> [y]: refused
closure push(v): out.append(v) / lambda v: kept.append(v): refused
keep_default(a, lst=[]) appended and read back: refused (wrong before) / a module's list:
    refused
self.cache.append(y), self.last = y, b.last = y then y written: refused
a class attribute list appended to (by the class or a method) and read back: refused
    (wrong before); c.put(v); c.get() on an object keeping a list: right (crashed before)
list(gen(y)), list(zip([y], [z])), list(enumerate([y])), list([y]): refused
a, b = y, y; np.asarray(y); np.array(y, copy=False) written: refused
y.reshape(-1) of np.zeros written: followed (view_writes)
np.add(b, x, out=b) with b = a or ident(a); z = x; z += 1: refused
keep(kept, y) before the write, or only y read later; a copy kept; a number kept: right
"""


def doubled_view(a):
    return a


@s2sad.defvjp(doubled_view)
def doubled_view_vjp(g, ans, a):
    return 2.0 * g


def through_rule(x):
    y = x * 1.0
    z = doubled_view(y)
    return np.sum(z * W)


def test_a_helper_with_a_rule_keeps_its_rule():
    """A helper the user gave a derivative rule is called with it, not written out as
    the view it returns (view_helpers leaves it)."""
    np.testing.assert_allclose(s2sad.grad(through_rule)(np.copy(X)), 2.0 * W)


# --- a class attribute list shared by instances; a list kept in an object --------------


class Registry:
    items = []  # (one list for the class: every instance's self.items)

    def add(self, a):
        self.items.append(a)


class RegistryInit:
    items = []

    def __init__(self):
        self.n = 0

    def add(self, a):
        self.items.append(a)


def class_list_direct(x):
    Registry.items.append(x * 2.0)
    out = np.sum(Registry.items[-1] * W)
    Registry.items.pop()
    return out


def class_list_by_method(x):
    r = Registry()
    r.add(x * 2.0)
    out = np.sum(Registry.items[-1] * W)
    Registry.items.pop()
    return out


def class_list_by_method_init(x):
    r = RegistryInit()
    r.add(x * 2.0)
    out = np.sum(RegistryInit.items[-1] * W)
    RegistryInit.items.pop()
    return out


@pytest.mark.parametrize("f", [class_list_direct, class_list_by_method,
                               class_list_by_method_init])
def test_a_class_attribute_list_read_again(f):
    """A class's list (``items = []`` in its body), appended to through the class or an
    instance's method s2sad does not inline, and read back: read as a constant before (a
    zero gradient). Refused at the change's line now, as a module's list is."""
    with pytest.raises(s2sad.errors.DifferentiationError) as info:
        s2sad.grad(f)(np.copy(X))
    assert "does not own" in str(info.value)
    assert Registry.items == [] and RegistryInit.items == []


class Cache:
    def __init__(self):
        self.store = []

    def put(self, a):
        self.store.append(a)

    def get(self):
        return self.store[-1]


def cached_and_read(x):
    c = Cache()
    c.put(x * 2.0)
    return np.sum(c.get() * W)


def test_a_list_kept_in_an_object_read_back():
    """``c.put(v)`` then ``c.get()``, an object made here holding a list: the reverse
    sweep gave the list's sensitivity as the 0.0 of an unread part, then indexed it
    (TypeError before). Its zeros now."""
    _check(cached_and_read)
