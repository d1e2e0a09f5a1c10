"""Session 36: over-refusals people hit, each modelled exactly now and its gradient checked
against central differences in float64 (reverse, unoptimized, forward where it runs).

* an object held by another's attribute (``self.inner = Inner(w)``) handed out by a
  method (``inn = o.get()``, ``return self.inner``) or passed on to a one-line helper
  (``helper(self.inner, h)``, ``helper(o.inner, x)``), and an object made here passed on
  (class_forms, local_objects, object_helpers);
* a named list of objects passed on, ``layers = [A(w1), B(w2)]; m = Seq(layers)``
  (class_forms.ObjectLoops);
* ``for i, layer in enumerate(self.layers)`` in such a ``Seq``'s methods (local_objects);
* ``functools.cached_property`` on a user class: the getter runs at the first read only,
  a later read gives the value kept, whatever changed since (local_objects); read on a
  differentiated argument, refused (main gave a zero gradient there: kinds.member);
* ``scipy.fft`` dct/dst/idct/idst, types 1-4, each norm, ``n=`` and ``axis=``: the adjoint
  checked against the transposed matrix of the transform too (rules/scipy_fft.py);
* ``np.angle(z, deg=True)``; ``complex(a, b)`` and ``cmath``'s exp, log, sqrt, sin, cos,
  phase, polar, rect with abs, autograd's convention (rules/complex.py);
* ``r = y.T.ravel()`` of an array made here, written: a view of ``y`` where ``y.T`` is
  C-contiguous (one row or column), else a copy, decided when it runs (view_writes);
* a view bound in one arm of an ``if`` (``v = y[1:]``), a new array in the other, then
  written: the arm Python took decides each read and write (view_writes).

Every test function marked ``# refused on main`` was refused on main (2243c0d): 154 of
the 163 tests here fail there (the DCT matrix tests too: no rule); the 9 others are two
controls (``inline_list``, a cached_property of an argument not differentiated) and the
tests at the end, which pin what stays refused, at the user's line.
"""

import cmath
import functools

import numpy as np
import pytest
from test_overrefusals_s32 import X, check

import s2sad

scipy_fft = pytest.importorskip("scipy.fft")


def central(f, x, eps=1e-6):
    """Float64 central differences of a real ``f`` at ``x`` (an array of floats)."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


# --- an object held by another, handed out or passed on -----------------------------------

class Inner:
    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return np.tanh(self.w * h)

    def scaled(self, h, k):
        return self.w * h * k


def twice(layer, h):
    """A one-line helper given an object."""
    return layer(h) * 2.0


def scaled_sum(layer, h, k=3.0):
    return np.sum(layer.scaled(h, k)) + np.sum(layer.w * h)


class Outer:
    def __init__(self, w):
        self.inner = Inner(w)
        self.b = 0.5

    def get(self):
        """The object held, handed out."""
        return self.inner

    def run(self, h):
        return twice(self.inner, h) + self.b

    def run_scaled(self, h):
        return scaled_sum(self.inner, h, 2.0) * self.b


def held_object_handed_out(x):  # refused on main
    o = Outer(x[0])
    inn = o.get()
    return np.sum(inn(x) * inn.w)


def held_object_passed_on_here(x):  # refused on main
    o = Outer(x[1] * 2.0)
    return np.sum(twice(o.inner, x)) + scaled_sum(o.inner, x)


def held_object_passed_on_by_a_method(x):  # refused on main
    o = Outer(x[2])
    return np.sum(o.run(x) * x) + o.run_scaled(x)


def object_made_here_passed_on(x):  # refused on main
    inn = Inner(x[0] + x[3])
    return np.sum(twice(inn, x) ** 2)


def handed_out_then_the_holder_changed(x):  # refused on main
    o = Outer(x[0])
    inn = o.get()
    y = inn(x)
    o.b = x[1]  # (the holder's other attribute: inn is still o.inner)
    return np.sum(y * inn(x[::-1])) + o.b


@pytest.mark.parametrize("f", [held_object_handed_out, held_object_passed_on_here,
                               held_object_passed_on_by_a_method, object_made_here_passed_on,
                               handed_out_then_the_holder_changed])
def test_held_objects_handed_on(f):
    check(f)


# --- a named list of objects passed on; enumerate over the list held --------------------

class Dense:
    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return np.tanh(self.w * h)


class Square:
    def __init__(self, s, b):
        self.s = s
        self.b = b

    def __call__(self, h):
        return self.s * h ** 2 + self.b


class Seq:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, h):
        for layer in self.layers:
            h = layer(h)
        return h


class Weighted:
    def __init__(self, layers, k):
        self.layers = layers
        self.k = k

    def __call__(self, h):
        out = 0.0
        for i, layer in enumerate(self.layers):
            h = layer(h)
            out = out + (i + self.k) * h
        return out + i * h  # (i: the last index, as Python leaves it)

    def started(self, h):
        for j, layer in enumerate(self.layers, 2):
            h = layer(h) * j
        return h


def named_list(x):  # refused on main
    layers = [Dense(x[0]), Square(x[1] * 2.0, 0.5)]
    m = Seq(layers)
    return np.sum(m(x))


def named_list_arguments_changed_later(x):  # refused on main
    w = x[0] * 1.0
    layers = [Dense(w), Square(x[1], x[2])]
    w = w * 3.0  # (the list's objects hold the value before)
    m = Seq(layers)
    return np.sum(m(x)) + w


def named_list_arrays_changed_in_place(x):  # refused on main
    w = x[:2] * 1.0
    layers = [Dense(x[3]), Square(w, 0.5)]
    w[0] = x[2] ** 2  # (the object holds the same array: it sees the change)
    m = Seq(layers)
    return np.sum(m(x[:2]))


def named_list_of_one(x):  # refused on main
    layers = [Square(x[0], x[1])]
    net = Seq(layers)
    return np.sum(net(x) * x)


def enumerate_held(x):  # refused on main
    m = Weighted([Dense(x[0]), Square(x[1], x[2]), Dense(0.5)], x[3])
    return np.sum(m(x))


def enumerate_named_list(x):  # refused on main
    layers = [Square(x[1], 0.1), Dense(x[0])]
    m = Weighted(layers, 2.0)
    return np.sum(m(x) * x)


def enumerate_with_start(x):  # refused on main
    m = Weighted([Dense(x[0]), Square(x[1], x[2])], 0.0)
    return np.sum(m.started(x))


def inline_list(x):  # (works on main: the display in the call)
    m = Seq([Dense(x[0]), Square(x[1] * 2.0, 0.5)])
    return np.sum(m(x))


@pytest.mark.parametrize("f", [named_list, named_list_arguments_changed_later,
                               named_list_arrays_changed_in_place, named_list_of_one,
                               enumerate_held, enumerate_named_list, enumerate_with_start,
                               inline_list])
def test_lists_of_objects(f):
    check(f)


# --- functools.cached_property ------------------------------------------------------------

class Cached:
    def __init__(self, w):
        self.w = w

    @functools.cached_property
    def sq(self):
        """sin(w), doubled: computed once."""
        return np.sin(self.w) * 2.0

    def bump(self, k):
        self.w = self.w * k
        return self.sq * self.w


def cached_read_twice(x):  # refused on main
    c = Cached(x)
    return np.sum(c.sq + c.sq * x)


def cached_kept_after_a_change(x):  # refused on main
    c = Cached(x)
    a = c.sq
    c.w = x * 3.0  # (a property would give sin(3 x) * 2 below: the cache keeps sin(x) * 2)
    return np.sum(a + c.sq * c.w)


def cached_first_read_in_a_method(x):  # refused on main
    c = Cached(x)
    b = c.bump(2.0)
    return np.sum(b + c.sq + c.bump(3.0))


def cached_first_read_in_one_arm(x):  # refused on main
    c = Cached(x)
    if x[0] > 0:
        t = c.sq * 2.0
    else:
        t = x
    c.w = x * 5.0
    return np.sum(t * c.sq)


def cached_in_a_loop(x):  # refused on main
    c = Cached(x)
    total = 0.0
    for _ in range(3):
        c.w = c.w * x
        total = total + np.sum(c.sq * c.w)
    return total


def cached_read_after_a_call_in_the_same_line(x):  # refused on main
    c = Cached(x)
    return np.sum(c.bump(2.0) * c.sq)  # (bump runs first, then sq: sin(2 x) * 2)


def cached_of_an_argument(x, c):  # (works on main where c is not differentiated)
    return np.sum(c.sq * x)


def test_cached_property_of_an_argument_not_differentiated():
    c = Cached(X.copy())
    g = s2sad.grad(cached_of_an_argument)(X.copy(), c)
    np.testing.assert_allclose(g, central(lambda x: cached_of_an_argument(x, Cached(X.copy())),
                                          X.copy()), rtol=1e-6, atol=1e-8)
    assert "sq" in vars(c)  # (read as Python reads it: the cache filled)


@pytest.mark.parametrize("filled", [False, True])
def test_cached_property_of_a_differentiated_argument_is_refused(filled):
    # (main gave c.w a zero gradient, though the getter reads it where the cache is empty)
    c = Cached(X.copy())
    if filled:
        c.sq
    with pytest.raises(s2sad.errors.DifferentiationError) as info:
        s2sad.grad(cached_of_an_argument, wrt="c")(X.copy(), c)
    assert "c.sq is a functools.cached_property" in str(info.value)
    assert info.value.lineno == cached_of_an_argument.__code__.co_firstlineno + 1


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("f", [cached_read_twice, cached_kept_after_a_change,
                               cached_first_read_in_a_method, cached_first_read_in_one_arm,
                               cached_in_a_loop, cached_read_after_a_call_in_the_same_line])
def test_cached_property(f, sign):
    check(f, X * sign)


# --- scipy.fft: the real trigonometric transforms -----------------------------------------

TRANSFORMS = ["dct", "dst", "idct", "idst"]
NORMS = [None, "backward", "forward", "ortho"]


@pytest.mark.parametrize("kind", TRANSFORMS)
@pytest.mark.parametrize("type_", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", NORMS)
def test_trig_adjoint_is_the_transposed_matrix(kind, type_, norm):  # no rule on main
    from s2sad import registry
    transform = getattr(scipy_fft, kind)
    rule = registry.lookup(transform)
    assert rule is not None and rule.adjoint is not None
    for n_in, n in [(5, None), (4, None), (5, 7), (6, 4), (2, None)]:
        if n_in == 2 and type_ == 1 and kind in ("dct", "idct"):
            continue  # (SciPy: DCT-I needs 2 points at least; 2 is fine, 1 raises)
        matrix = np.stack([transform(e, type_, n, norm=norm) for e in np.eye(n_in)], axis=1)
        out = n or n_in
        adjoint = np.stack([rule.adjoint(e, None, np.zeros(n_in), type_, n, -1, norm)
                            for e in np.eye(out)], axis=1)
        np.testing.assert_allclose(adjoint, matrix.T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", TRANSFORMS)
@pytest.mark.parametrize("type_", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_trig_transform_gradients(kind, type_, norm):  # refused on main
    transform = getattr(scipy_fft, kind)
    A = np.arange(12.0).reshape(3, 4) / 7.0 - 0.5
    W = np.cos(np.arange(15.0)).reshape(5, 3)

    def f(a):
        y = transform(a * a[0, 1], type_, 5, axis=0, norm=norm)
        return np.sum(y * np.sin(y) * W[:, :1])  # (a crop... no: n=5 pads 3 rows to 5)

    g = s2sad.grad(f)(A)
    np.testing.assert_allclose(g, central(f, A), rtol=1e-6, atol=1e-8)


def dct_of_a_view_then_written(x):  # refused on main
    y = np.zeros(4)
    y += x
    v = y[1:]
    c = scipy_fft.dct(v, norm="ortho")  # (a new array: writing y after leaves c alone)
    y[1] = 5.0
    return np.sum(c * np.arange(3.0)) + np.sum(y[1:] * v)


def idst_roundtrip(x):  # refused on main
    y = scipy_fft.idst(scipy_fft.dst(x, type=3) * x, type=3)
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [dct_of_a_view_then_written, idst_roundtrip])
def test_trig_transforms_in_programs(f):
    check(f)


# --- np.angle in degrees; complex(a, b) and cmath -----------------------------------------

Z2 = np.array([0.3, 0.8])


def angle_in_degrees(x):  # refused on main
    z = x[0] + 1j * x[1]
    return np.angle(z * z, deg=True) + np.sum(np.angle(np.array([z, z * 1j]), True))


def cmath_holomorphic(x):  # refused on main
    z = complex(x[0], x[1])
    return abs(cmath.exp(z) * cmath.sin(z)) + cmath.phase(cmath.sqrt(z) + cmath.log(z)) + \
        (cmath.cos(z) * z).real


def cmath_polar_rect(x):  # refused on main
    z = complex(x[0], x[1])
    r, p = cmath.polar(z * z)
    w = cmath.rect(r * x[0], p + x[1])
    return w.real * 2.0 + w.imag + abs(cmath.cos(w))


def cmath_log_base_and_real_argument(x):  # refused on main
    z = complex(x[0], x[1])
    return abs(cmath.log(z, 2.0 + x[0])) + (cmath.exp(x[0]) * 1j).imag + \
        cmath.phase(complex(x[1]))


def complex_of_numbers(x):  # refused on main
    z = complex(x[0] ** 2, np.sum(x))
    return z.real * z.imag + abs(z * 1j)


@pytest.mark.parametrize("x", [Z2, -Z2, np.array([-0.7, 0.2])])
@pytest.mark.parametrize("f", [angle_in_degrees, cmath_holomorphic, cmath_polar_rect,
                               cmath_log_base_and_real_argument, complex_of_numbers])
def test_complex_scalars(f, x):
    g = s2sad.grad(f)(x.copy())
    np.testing.assert_allclose(g, central(f, x.copy()), rtol=1e-6, atol=1e-8)


def cmath_of_a_complex_argument(z):  # refused on main
    return abs(cmath.exp(z)) + cmath.phase(z) + cmath.sqrt(z).real + cmath.polar(z)[0] * 2.0


def test_a_complex_argument_takes_autograd_s_convention():
    z, eps = 0.4 - 0.9j, 1e-6
    f = cmath_of_a_complex_argument
    want = (f(z + eps) - f(z - eps)) / (2 * eps) - 1j * (f(z + 1j * eps) -
                                                          f(z - 1j * eps)) / (2 * eps)
    np.testing.assert_allclose(s2sad.grad(f)(z), want, rtol=1e-6)


# --- y.T.ravel(): a view of y where y.T is C-contiguous, else a copy -----------------------

def ravel_of_a_transpose_copy(x):  # refused on main
    y = np.zeros((2, 2))
    y[0] = x[:2]
    y[1] = x[2:] ** 2
    r = y.T.ravel()  # (a copy: y.T is not C-contiguous)
    r[1] = x[0] * 3.0
    y[0, 0] = x[3]  # (r keeps what it copied)
    return np.sum(y * x.reshape(2, 2)) + np.sum(r * x)


def ravel_of_a_transposed_row_view(x):  # refused on main
    y = np.zeros((1, 4))
    y[0] = x * 2.0
    r = y.T.ravel()  # (one row: y.T is C-contiguous, a view)
    r[1] = x[0] ** 2  # (changes y too)
    y[0, 2] = x[3] * x[1]  # (changes r too)
    return np.sum(y[0] * x) + np.sum(r ** 2 * x)


def ravel_of_a_transposed_column_view(x):  # refused on main
    y = np.ones((4, 1))
    y[:, 0] = x
    r = np.ravel(y.T)
    r += x * x
    r[::2] *= x[1]
    return np.sum(y[:, 0] * x) + np.sum(r[1:] * x[:3]) + np.max(r)


def ravel_of_a_transpose_updated_whole(x):  # refused on main
    y = np.zeros((2, 2))
    y += x.reshape(2, 2)
    r = y.T.ravel()
    r += x
    r *= x[2]
    return np.sum(y ** 2) + np.sum(np.sort(r) * x) + r.sum()


@pytest.mark.parametrize("f", [ravel_of_a_transpose_copy, ravel_of_a_transposed_row_view,
                               ravel_of_a_transposed_column_view,
                               ravel_of_a_transpose_updated_whole])
def test_ravel_of_a_transpose(f):
    check(f)


# --- a view taken in one arm of an if, a new array in the other, then written --------------

def view_or_new_array(x):  # refused on main
    y = np.zeros(4)
    y += x
    if x[0] > 0:
        v = y[1:3]
    else:
        v = x[2:] * 2.0
    v[1] = x[3] ** 2  # (y changes only where v is its view)
    y[2] = x[1] * 3.0  # (v sees it only where it is a view)
    return np.sum(y * x) + np.sum(v * x[:2])


def new_array_or_view(x):  # refused on main
    y = np.ones((2, 4))
    y[1] = x
    if x[0] > 0:
        w = x[1] * 2.0
        v = np.zeros((1, 4)) + w
    else:
        v = y[1:, ...]  # (slices and `...`: it cannot raise)
    v += x * x
    v[:, ::2] *= x[2]
    return np.sum(y ** 2 * x[0]) + np.sum(v * x)


def view_or_new_array_in_a_loop(x):  # refused on main
    A = np.zeros((2, 4))
    total = 0.0
    for i in range(4):
        if x[i] > 0:
            v = A[:, 1:]
        else:
            v = np.ones((2, 3)) * x[i]
        v[0] += x[1:] * (i + 1.0)
        total = total + np.sum(v ** 2)
    return total + np.sum(A * A[0])


def view_or_new_array_read_before(x):  # refused on main
    y = np.zeros(3)
    y[:] = x[:3]
    if x[3] > 0:
        v = y[-2:]
    else:
        v = y[:2] * x[0]
    s = np.sum(v) * x[1]  # (read before the write: each arm's own)
    v[0] = s
    return np.sum(y * x[:3]) + np.sum(v)



def new_array_or_view_in_a_loop(x):  # refused on main
    A = np.zeros(5)
    A[1:] += x
    total = 0.0
    for i in range(4):
        if x[i] > 0:
            v = np.ones(3) * x[i]
        else:
            v = A[2:]
        v[i % 3] = v[0] * x[i] + 1.0
        A[3] += x[3]  # (seen by the next view, not by the new arrays)
        total = total + np.sum(v * x[1:])
    return total + np.sum(A ** 2)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("f", [view_or_new_array, new_array_or_view,
                               view_or_new_array_in_a_loop, view_or_new_array_read_before,
                               new_array_or_view_in_a_loop])
def test_view_in_one_arm(f, sign):
    check(f, X * sign)


# --- what stays refused, at the user's line -----------------------------------------------

def orthogonalized_backward(x):
    return np.sum(scipy_fft.dct(x, norm="backward", orthogonalize=True))  # <- refused


def cached_set_from_outside(x):
    c = Cached(x)
    c.sq = x * 7.0  # <- refused
    return np.sum(c.sq)


def ravel_of_a_transpose_aliased(x):
    y = np.zeros((1, 4))
    r = y.T.ravel()
    s = r  # (another name for the same array: not followed)
    s[0] = x[0]  # <- refused
    return np.sum(y * x) + np.sum(r)


def ravel_of_a_transpose_filled(x):
    y = np.zeros((1, 4))
    y += x
    r = y.T.ravel()
    r.fill(2.0)  # <- refused
    return np.sum(y * x)


def view_or_the_argument(x):
    y = np.zeros(4)
    if x[0] > 0:
        v = y[1:]
    else:
        v = x  # (the argument itself: changed in place below)
    v[0] = x[1]  # <- refused
    return np.sum(y * x) + np.sum(v)


def view_by_a_variable_or_new_array(x):
    y = np.zeros(4)
    k = 1
    if x[0] > 0:
        v = y[k:]  # (a name in the index: not taken again)
    else:
        v = np.ones(3)
    v[0] = x[1]  # <- refused
    return np.sum(y * x) + np.sum(v)


class Swapped(Outer):
    def swap(self, w):
        self.inner = Inner(w)  # (another object: the one handed out before stays)


def handed_out_then_swapped(x):
    o = Swapped(x[0])
    inn = o.get()
    o.swap(x[1])
    return np.sum(inn(x))  # <- refused


@pytest.mark.parametrize("f, error, words", [
    (orthogonalized_backward, s2sad.NoDerivativeError, "orthogonalize"),
    (cached_set_from_outside, s2sad.UnsupportedSyntaxError, "attribute"),
    (ravel_of_a_transpose_aliased, s2sad.UnsupportedSyntaxError, "shares its memory"),
    (ravel_of_a_transpose_filled, s2sad.UnsupportedSyntaxError, "fill"),
    (view_or_the_argument, s2sad.UnsupportedSyntaxError, "argument 'x'"),
    (view_by_a_variable_or_new_array, s2sad.UnsupportedSyntaxError, "'v'"),
    (handed_out_then_swapped, s2sad.NoDerivativeError, "inn")])
def test_still_refused(f, error, words):
    import inspect
    lines, start = inspect.getsourcelines(f)
    line = start + next(i for i, text in enumerate(lines) if "# <- refused" in text)
    with pytest.raises(error) as info:
        s2sad.grad(f)(X.copy())
    assert info.value.lineno == line and words in str(info.value)
