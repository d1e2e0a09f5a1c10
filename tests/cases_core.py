"""Functions differentiated by tests/test_gradients.py.

s2sad reads a function's source with ``inspect``, so every function under test
is defined here with ``def`` at module level. Each is straight-line code that
returns a scalar.
"""

import math

import numpy as np


# --- Python floats: operators ---------------------------------------------------------


def s_arith(x, y):
    a = x + y
    b = x - y
    c = a * b
    d = c / (y * y + 1.0)
    return d


def s_pow(x, y):
    return x ** y


def s_pow_const(x):
    return 2.0 * x ** 3 - 1.5 ** x + 4.0


def s_neg(x, y):
    z = -x * y
    return -z + -(x * x)


def s_constants(x):
    a = 3.0 * x
    b = a + 2.0
    c = 1.0 / b
    d = b - 7.5
    return c * d * 0.5


# --- Python floats: math module ---------------------------------------------------------


def m_sin(x):
    return math.sin(x) * x


def m_cos(x):
    return math.cos(x * x)


def m_tan(x):
    return math.tan(x) + x


def m_exp(x):
    return math.exp(x * 0.5) * x


def m_log(x):
    return math.log(x) * x


def m_sqrt(x):
    return math.sqrt(x) * x


def m_tanh(x):
    return math.tanh(x * 2.0)


def m_atan(x):
    return math.atan(x * 3.0)


def m_log_base(x, b):
    return math.log(x, b)


def builtin_abs(x):
    return abs(x) * x


def builtin_abs_array(x):
    return np.sum(abs(x) * x)


def np_function_calls(x, y):
    a = np.add(x, y)
    b = np.subtract(a, np.multiply(x, 2.0))
    c = np.divide(b, np.power(y, 2.0))
    d = np.negative(np.absolute(c))
    return np.amax(d) + np.amin(np.positive(a))


def m_pow(x, y):
    return math.pow(x, y)


def m_fabs(x, y):
    return math.fabs(x * y) * x


def m_chain(x, y):
    a = math.sin(x) * math.exp(y)
    b = math.log(a * a + 1.0)
    c = math.sqrt(b + x * x)
    return math.tanh(c) + math.atan(a) - math.cos(y)


def np_on_float(x):
    return np.sin(x) * np.exp(x) + np.sqrt(x * x + 1.0)


# --- elementwise NumPy functions on arrays ------------------------------------------------


def e_sin(x):
    return np.sum(np.sin(x) * x)


def e_cos(x):
    return np.sum(np.cos(x) * x)


def e_tan(x):
    return np.sum(np.tan(x))


def e_exp(x):
    return np.sum(np.exp(x) * x)


def e_log(x):
    return np.sum(np.log(x) * x)


def e_sqrt(x):
    return np.sum(np.sqrt(x) * x)


def e_tanh(x):
    return np.sum(np.tanh(x) * x)


def e_abs(x):
    return np.sum(np.abs(x) * x)


def e_square(x):
    return np.sum(np.square(x) * x)


def e_neg(x):
    return np.sum(-x * np.sin(x))


def e_chain(x):
    y = np.exp(np.sin(x) * 0.5)
    z = np.log(y * y + 1.0)
    return np.sum(np.sqrt(z) * np.tanh(x))


# --- binary operators (broadcasting) ----------------------------------------------------


def b_add(a, b):
    return np.sum(np.sin(a + b))


def b_sub(a, b):
    return np.sum(np.sin(a - b))


def b_mul(a, b):
    return np.sum(np.sin(a * b))


def b_div(a, b):
    return np.sum(np.sin(a / b))


def b_pow(a, b):
    return np.sum(np.sin(a ** b))


def b_maximum(a, b):
    return np.sum(np.sin(np.maximum(a, b)))


def b_minimum(a, b):
    return np.sum(np.sin(np.minimum(a, b)))


# --- reductions -------------------------------------------------------------------------


def r_sum_all(x):
    return np.sin(np.sum(x * x))


def r_sum_axis0(x):
    return np.sum(np.sin(np.sum(x, axis=0)))


def r_sum_axis_neg(x):
    return np.sum(np.sin(np.sum(x, axis=-1)))


def r_sum_axis_tuple(x):
    return np.sum(np.sin(np.sum(x, axis=(0, 2))))


def r_sum_keepdims(x):
    s = np.sum(x, axis=1, keepdims=True)
    return np.sum(np.sin(x * s))


def r_mean_all(x):
    return np.sin(np.mean(x * x))


def r_mean_axis0(x):
    return np.sum(np.sin(np.mean(x, axis=0) * 3.0))


def r_mean_axis_neg_keepdims(x):
    m = np.mean(x, axis=-1, keepdims=True)
    return np.sum((x - m) ** 2)


def r_mean_axis_tuple(x):
    return np.sum(np.sin(np.mean(x, axis=(1, 2)) * 2.0))


def r_max_all(x):
    return np.max(x * x)


def r_max_axis(x):
    return np.sum(np.sin(np.max(x, axis=1)))


def r_max_axis_neg_keepdims(x):
    m = np.max(x, axis=-1, keepdims=True)
    return np.sum(np.exp(x - m))


def r_min_all(x):
    return np.min(x * x)


def r_min_axis(x):
    return np.sum(np.sin(np.min(x, axis=0)))


def r_min_axis_tuple(x):
    return np.sum(np.sin(np.min(x, axis=(0, 2))))


def r_positional_axis(x):
    return np.sum(np.sin(np.sum(x, 0)) * np.mean(x, 0) + np.max(x, 0))


def r_neg_tuple_axis(x):
    return np.sum(np.sin(np.sum(x, axis=(-1, 0))) + np.mean(x, axis=(0, -1)))


def r_extremum_tuple_keepdims(x):
    m = np.max(x, axis=(1, 2), keepdims=True)
    n = np.min(x, axis=(0, -1), keepdims=True)
    return np.sum(np.sin(x * m + n))


def r_sum_all_keepdims(x):
    s = np.sum(x, keepdims=True)
    return np.sum(np.sin(x * s))


# --- methods ----------------------------------------------------------------------------


def meth_sum(x):
    return (x * np.sin(x)).sum()


def meth_mean_axis(x):
    return np.sum(np.sin(x.mean(axis=0)))


def meth_T(x, w):
    return np.sum(np.sin(x.T * w))


def meth_dot(x, y):
    return np.sum(np.sin(x.dot(y)))


def meth_axis(x):
    a = x.sum(axis=0, keepdims=True)
    b = x.max(axis=1)
    c = x.min()
    return np.sum(np.sin(x * a)) + np.sum(b * b) + c


def meth_T_vec(x, y):
    return x.T.dot(y) + np.transpose(y).dot(x.T)


def meth_max(x):
    return (x * x).max()


# --- linear algebra ---------------------------------------------------------------------


def la_dot(x, y):
    return np.sum(np.sin(np.dot(x, y)))


def la_dot_scalar_out(x, y):
    return np.sin(np.dot(x, y))


def la_matmul(x, y):
    return np.sum(np.sin(np.matmul(x, y)))


def la_matmul_op(x, y):
    return np.sum(np.sin(x @ y))


def la_vec_matmul_scalar_out(x, y):
    return np.sin(x @ y)


def la_td_1(x, y):
    return np.sum(np.sin(np.tensordot(x, y, axes=1)))


def la_td_2(x, y):
    return np.sum(np.sin(np.tensordot(x, y, axes=2)))


def la_td_lists(x, y):
    return np.sum(np.sin(np.tensordot(x, y, axes=([1], [0]))))


def la_td_multi(x, y):
    return np.sum(np.sin(np.tensordot(x, y, axes=([0, 2], [1, 0]))))


def la_td_multi_x_unsorted(x, y):
    return np.sum(np.sin(np.tensordot(x, y, axes=([2, 0], [0, 1]))))


def la_td_multi_sorted(x, y):
    return np.sum(np.sin(np.tensordot(x, y, axes=([1, 2], [0, 1]))))


def la_td_square(x, y):
    return np.sum(np.tensordot(x, y, axes=([0, 1], [1, 0])) * 1.0)


def la_transpose(x, w):
    return np.sum(np.sin(np.transpose(x) * w))


def la_transpose_axes(x, w):
    return np.sum(np.sin(np.transpose(x, (1, 0, 2)) * w))


def la_transpose_axes_kw(x, w):
    return np.sum(np.sin(np.transpose(x, axes=(2, 0, 1)) * w))


def la_self_products(x):
    return np.sum(np.sin(x @ x.T)) + np.dot(x[0], x[0])


# --- subscripts -------------------------------------------------------------------------


def sub_index(x):
    return x[0] * x[2] + np.sin(x[-1])


def sub_slice(x):
    return np.sum(np.sin(x[1:3]) * x[::2][:2])


def sub_column(x):
    return np.sum(np.sin(x[:, 0]) * x[:, 1]) + np.sum(x[1] * x[2]) + x[1, 2] * x[-1, -1]


def sub_row_broadcast(x):
    return np.sum(np.sin(x - x[0]) + x * x[:, 0:1])


def sub_list(x):
    return x[0] * x[1] + math.sin(x[2])


def sub_tuple(x):
    return x[0] * math.exp(x[1]) - x[2]


# --- the traps ------------------------------------------------------------------


def trap_normalized(x):
    s = np.sum(x)
    return np.sum(x / s)


def trap_pow_sum(x):
    s = np.sum(x)
    return np.sum(s ** x)


def trap_shared(x):
    s = np.sum(x)
    t = s * x
    return np.sum(t * s)


# --- statements -------------------------------------------------------------------------


def st_reassign(x):
    x = x * 2
    x = np.sin(x)
    return np.sum(x)


def st_reassign_scalar(x):
    x = x * 2.0
    x = math.sin(x) * x
    return x


def st_augassign(x):
    y = x * 1.0
    y += x * x
    return np.sum(y * np.cos(x))


def st_augassign_alias(x):
    # NumPy semantics: y is x, so `y += ...` updates x in place and cos sees the new x
    y = x
    y += x * x
    return np.sum(y * np.cos(x))


def st_augassign_all(x, w):
    y = x * 1.0
    y += w
    y -= x * w
    y *= x
    y /= w
    y **= 2
    return np.sum(y)


def st_augassign_float(x):
    y = x
    y += x * x
    y *= 3.0
    return y


def st_unpack_array(x):
    a, b, c = x
    return a * b + np.sin(c) * a


def st_unpack_list(x):
    a, b, c = x
    return a * b * c + math.exp(a - c)


def st_unpack_rows(x):
    r0, r1 = x
    return np.sum(np.sin(r0 * r1))


def st_unpack_tuple_names(x, y):
    a, b = y, x
    return np.sum(a * np.sin(b))


def st_unpack_tuple_expr(x, y):
    a, b = x * y, x + y
    return np.sum(a * b)


def st_generated_like_names(x, s_x):
    # user variables that look like the compiler's temporaries and sensitivities
    t_1 = x * 2.0
    s_1 = np.sin(t_1) * s_x
    t_2 = s_1 * x
    return np.sum(t_2)


def f_multi(x, w, c):
    y = np.dot(x, w) + c
    return np.sum(np.tanh(y)) * c


def f_pass_through(x, n, scale):
    return np.sum(x ** n) * scale


def f_independent(x, y):
    return np.sum(np.sin(y))


def f_independent_float(x, y):
    return y * y


def f_partial_dependent(x, y):
    z = x * 0.0
    return np.sum(y * y) + np.sum(z)


def f_int_constant(x):
    return np.sum(x * 2 + x ** 2 - 1)


def f_float32(x, w):
    return np.sum(np.tanh(x @ w))


def either(x, y):
    return (x or y) * 2.0


def scalar_math_and_builtins(x, y):
    a = math.sin(x) * y
    b = abs(a) + max(x, y) + pow(x, 3)
    return a * b + math.exp(-x) + sum([x, y, x * y])


# --- writes through an index array that repeats a position: NumPy keeps the last write
# (`+=` adds once), so the earlier writes get no gradient (they once all got one)

def dup_assign(v):
    out = np.zeros(3)
    out[np.array([0, 1, 1])] = v
    return np.sum(out * np.array([1.0, 10.0, 100.0]))


def dup_add(v, w):
    out = w * 1.0
    out[np.array([0, 1, 1])] += v
    return np.sum(out ** 2)


def dup_two_axes(x):
    y = np.zeros((2, 3))
    y[[0, 1, 0], [1, 1, 1]] = x
    return np.sum(y ** 2 * np.arange(6.0).reshape(2, 3))


def dup_columns(x, w):
    y = w * 1.0
    y[:, [1, 1, 2]] += x
    return np.sum(y ** 3)


def dup_counts(w, tokens):
    counts = np.zeros(4)
    counts[tokens] += w[tokens]
    return np.sum(counts ** 2)


def dup_in_a_loop(x, idx):
    out = np.zeros(3)
    for i in range(2):
        out[idx] = out[idx] + x * (i + 1.0)
    return np.sum(out ** 2)


def max_min_of_several(a, b, c):
    """max and min of more than two numbers: two at a time, as Python compares them."""
    return max(a, b, c) * 2.0 + min(a * 2.0, b, c, 0.5) + max(c, a, b, c)
