import numpy as np
import math


def seed_while(x):
    b = x * 2.0
    while np.linalg.norm(b) < 1000:
        b = b * 2
    if np.sum(b) > 0:
        c = b
    else:
        c = 100 * b
    return np.sum(c)


def branchy(x, y):
    if x > y:
        z = x * y
    elif x > 0:
        z = np.sin(x)
    else:
        z = y ** 2
    return z


def ifexp(x):
    y = x * x if x > 0 else -x
    z = (x > 1.0) and x or 2.0 * x
    return y + z


def sum_loop(xs):
    total = 0.0
    for x in xs:
        total = total + x * x
    return total


def range_loop(x, n):
    y = x
    for i in range(n):
        y = y * x + i
    return y


def scalar_while(x):
    y = x
    k = 0
    while y < 100.0:
        y = y * 1.5 + math.sin(y)
        k = k + 1
    return y


def nested(W, xs):
    h = np.zeros(W.shape[0])
    for t in range(len(xs)):
        h = np.tanh(W @ h + xs[t])
        for j in range(2):
            h = h * 0.9
    return np.sum(h * h)


def zipped(a, b):
    s = 0.0
    for u, v in zip(a, b):
        s = s + u * v
    for i, u in enumerate(a):
        s = s + i * u
    return s


def seed_notebook(x):
    # the TensorFlow-eager notebook's data-dependent function, written with NumPy
    b = x
    while np.linalg.norm(b) < 1000:
        b = b * 2
    if np.sum(b) > 0:
        c = b
    else:
        c = 100 * b
    return np.sum(c)


def rnn(W, U, xs, h0):
    h = h0
    for x in xs:
        h = np.tanh(W @ h + U @ x)
    return np.sum(h ** 2)


def tuple_loop(x):
    acc = 0.0
    for c in (1.0, 2.0, 3.0):
        acc = acc + c * np.sin(x * c)
    return acc


def list_loop(ws, x):
    y = x
    for w in ws:
        y = np.tanh(w * y)
    return y


def loop_carried_pair(x):
    a, b = x, 1.0
    for i in range(4):
        a, b = b * 0.5, a + b
    return a * b


def nested_branch_in_loop(x):
    y = 0.0
    for i in range(5):
        if x * i > 1.0:
            y = y + np.sin(x * i)
        elif i % 2 == 0:
            y = y - x
        else:
            y = y * x
    return y


def while_with_counter(x):
    n = 0
    y = x
    while n < 10 and y < 50.0:
        y = y * y + 1.0
        n = n + 1
    return y / (n + 1.0)


def conditional_expression_array(x):
    s = np.sum(x)
    y = x * 2.0 if s > 0 else x ** 2
    return np.sum(y * x)


def not_and_or(x, y):
    flag = not (x > y)
    z = flag and x * y or x + y
    return z


def for_else(x):
    y = x
    for i in range(3):
        y = y * x
    else:
        y = y + 1.0
    return y


def while_else(x):
    y = x
    while y < 10.0:
        y = y * 3.0
    else:
        y = y - 1.0
    return y


def reassign_in_branch_only(x):
    y = x * 2.0
    if x > 0.5:
        y = np.exp(y)
    return y * x


def early_returns(x):
    if x > 2.0:
        return x * x
    elif x > 0.0:
        y = np.sin(x)
        if y > 10.0:
            return y
        return y * x
    z = x ** 3
    return z - x


def loop_with_break(x):
    y = x
    for i in range(6):
        y = y * 1.3 + x
        if y > 5.0:
            break
        y = y - 0.1 * x
    return y


def loop_with_continue(x):
    y = 0.0
    for i in range(6):
        if i % 2 == 0:
            continue
        y = y + np.sin(x * i)
    return y


def while_true_break(x):
    y = x
    n = 0
    while True:
        y = y * y + 0.5
        n = n + 1
        if y > 20.0 or n > 8:
            break
    return y


def for_else_break(x):
    y = x
    for i in range(3):
        y = y * 2.0
        if y > 3.0:
            y = y - 1.0
            break
    else:
        y = y * 10.0
    return y


def nested_break(v):
    total = 0.0
    for a in v:
        for k in range(5):
            total = total + a * k
            if k >= 2:
                break
    return total


def setitem_basic(x):
    y = np.zeros(4)
    y[0] = x[1] * 2.0
    y[1:3] = np.sin(x[0:2])
    y[3] += x[2] * x[0]
    return np.sum(y * y)


def setitem_overwrite_needed(x):
    y = x * 1.0
    z = np.sum(y * y)
    y[1] = 3.0 * x[0]
    y[2] += y[1]
    return z + np.sum(np.sin(y))


def setitem_in_loop(x):
    n = x.shape[0]
    y = np.zeros(n)
    for i in range(n):
        if i == 0:
            y[i] = x[i]
        else:
            y[i] = y[i - 1] * 0.5 + np.tanh(x[i])
    return np.sum(y ** 2)


def setitem_mask(x):
    y = x * 1.0 if True else x * 2.0
    y[y > 0] = 0.5 * y[y > 0]
    return np.sum(y * x)


def setitem_list(a, b):
    ys = [0.0, 0.0, 0.0]
    ys[0] = a * b
    ys[1] = ys[0] + b
    ys[2] = math.sin(ys[1])
    return ys[0] + ys[1] * ys[2]


def setitem_broadcast(x, s):
    y = np.ones((2, 3))
    y[:, 1] = s
    y[0] = x
    return np.sum(y * y)


def f4_compact(abcd):
    # the seed's compact f4
    return 2.0 * sum(abcd[i] * abcd[j] * abcd[k]
                     for (i, j, k) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)])


def list_comprehension(x):
    squares = [v * v for v in x if v > -10.0]
    return sum(squares) + np.sum(np.stack([np.sin(v) for v in x]))


def nested_comprehension(a, b):
    pairs = [u * v for u in a for v in b]
    return sum(pairs)


def append_loop(x):
    hs = []
    h = x
    for i in range(4):
        h = np.tanh(h * 1.1 + 0.1)
        hs.append(h)
    total = 0.0
    for j in range(len(hs)):
        total = total + hs[j] * (j + 1)
    return total


def append_then_index(x):
    ys = []
    ys.append(x * 2.0)
    ys.append(np.sin(x))
    ys.append(ys[0] * ys[1])
    return ys[2] + len(ys) * ys[0]


def scalar_while_long(x, n):
    k = 0
    while k < n:
        x = math.sin(x) + 0.5 * x
        k = k + 1
    return x


def return_in_loop(x):
    for i in range(5):
        x = x * 1.7
        if x > 3.0:
            return x * 2.0
    return -x


def newton_sqrt(a):
    y = a
    while True:
        y = 0.5 * (y + a / y)
        if abs(y * y - a) < 1e-12:
            return y


def return_in_nested_loops(x, w):
    s = 0.0
    for i in range(4):
        for j in range(3):
            s = s + np.sin(x * w[j]) * (i + 1)
            if s > 2.0:
                return s * x
    else:
        s = s * 3.0
    return s


def return_from_array_loop(w):
    total = 0.0
    for v in w:
        total = total + v * v
        if total > 1.0:
            return total * w[0]
    return np.sum(w) * 2.0


def assigned_in_both_arms_but_in_a_loop(x, flag):
    if flag > 0:
        for i in range(2):
            b = np.array([x, x * x, 1.0])
            x = np.tanh(np.sum(b * b))
    else:
        if flag < -5:
            b = np.ones(3)
    return x * 2.0


def user_list_named_stack(x):
    stack = []
    while x < 10.0:
        stack.append(x)
        x = x * 1.5 + 0.1 * np.sin(x)
    return x + 0.01 * sum(stack)


def rows_as_a_list(x):
    rows = list(x)  # the rows of an array, as a list
    return np.sum(rows[0] * rows[1]) + np.sum(np.sin(rows[2]))


def sequence_conversions(a, b):
    t = tuple([a, a * b])
    u = list((t[1], b))
    return t[0] * t[1] + u[0] * u[1]


def iterate_a_name_rebound_in_the_loop(x, v):
    a = v
    for b in a:  # Python walks the array `a` held when the loop began
        a = 0.5 * a + 0.5 * np.tanh(b * x)
    return np.sum(a)


def iterate_an_expression(x):
    total = 0.0
    for e in x * 2.0:
        total = total + e * np.sin(e)
    return total


def reduction_used_in_one_branch(y, M):
    t = np.mean(M / (1.0 + y * y), axis=1)
    if y < 0.3:
        return np.tanh(np.dot(t, t))
    return np.tanh(y)  # nothing flows into t's sensitivity: its 0.0 meets mean's axis


def return_then_continue(a):
    s = 0.0
    for i in range(4):
        if s > 2.0:
            return s * a
        elif i == 1:
            continue  # (the return's `break` kept what follows out of its branch)
        s = s + a * a
    return s


def continue_inside_a_returning_branch(a):
    s = a
    for i in range(4):
        if s > 2.0:
            if i == 3:
                continue
            return s * a
        s = s + a * a
    return s


def break_under_a_test_then_return(x, stop):
    s = 0.0
    for i in range(3):
        if stop > 0:
            if i == stop:
                break
        if x[i] > 2.5:
            return s  # (what follows was written twice: the branches shared its nodes)
        s = s + x[i] ** 2
    return s


def unreachable_after_jumps(a):
    s = a
    for i in range(3):
        if s > 2.0:
            continue
            s = s * 100.0
        s = s * a
        if s > 1.5:
            break
            s = s * 10.0
    if s > 5.0:
        return s
        s = s * 1000.0
    return s * a


def _sum_until(x, early=False):
    s = 0.0
    for i in range(3):
        if x[i] < -5.0:
            continue
        if early:
            return s
        s = s + x[i] ** 2
    return s


def helper_returning_in_a_loop_under_a_constant(x):
    return _sum_until(x) + _sum_until(x * 2.0, early=False) + _sum_until(x, True)


def _sum_until_nested(x, early=False):
    s = 0.0
    for j in range(2):
        for i in range(3):
            if x[i] < -5.0:
                break
            if early:
                return s
            s = s + x[i] ** 2
        s = s * 0.5
    return s


def helper_returning_in_nested_loops_under_a_constant(x):
    return _sum_until_nested(x) + _sum_until_nested(x, early=True)


def matrix_display(a):
    M = np.array([[a, 1.0, a], [2.0, a * a, 3.0]])  # (second order: its sensitivity is
    return np.sum(np.tanh(M) * M)                    # lists of lists, added item by item)


def tuple_matrix_display(a):
    M = np.array(((a, 1.0), (2.0, a * a)))
    return np.sum(M @ M)


def dict_items_loop(a):
    d = {"u": a, "v": a * a}
    s = 0.0
    for k, v in d.items():
        s = s + v * v * a
    return s


def dict_items_of_arrays(a):
    d = {"u": np.array([a, 2.0]), "v": a * a}
    s = 0.0
    for k, v in d.items():
        s = s + np.sum(v * v) * a
    return s


def dict_items_of_pairs(a):
    d = {"u": (a, 2.0), "v": (a * a, a)}
    s = 0.0
    for k, (p, q) in d.items():
        s = s + p * q * q
    return s


def _row_from_branches(t, p):
    if t > 0:
        t7 = t * 2.0
        if p > 1.0:
            p1 = p * t
            return np.array([t7, p1, 0.7])
        else:
            p1 = p + 1.0
    else:
        t7 = t
        p1 = 0.5
    return np.array([t7, p1, 0.7])


def helper_row_from_nested_branches(a):
    v = _row_from_branches(a, a * a)  # (second order: the sensitivity of a list made in
    return v[0] * v[1] + np.sum(v ** 2)  # one branch was made where it does not exist)


def reversed_iteration(xs):
    acc = 1.0
    for v in reversed(xs):
        acc = acc * 0.5 + v * v
    return acc


def enumerate_zip(X, y, w):
    total = 0.0
    for i, (row, t) in enumerate(zip(X, y)):
        total = total + (i + 1.0) * (row @ w - t) ** 2
    return total


def enumerate_index_set_in_the_body(xs):
    total = 0.0
    for i, v in enumerate(xs):
        i = i * 2.0
        total = total + i * v
    return total


def kalman_filter(x0, P0, zs, q):
    x, P = x0, P0
    total = 0.0
    for z in zs:
        P = P + q * np.eye(2)
        S = P + 0.5 * np.eye(2)
        K = P @ np.linalg.inv(S)
        r = z - x
        x = x + K @ r
        P = (np.eye(2) - K) @ P
        total = total + r @ np.linalg.solve(S, r) + np.log(np.linalg.det(S))
    return total


# --- issue 35: generators, checks that raise -----------------------------------------------

def layer_weights(params, sizes):
    start = 0
    for m, n in zip(sizes[:-1], sizes[1:]):
        yield params[start:start + m * n].reshape(m, n), params[start + m * n:start + m * n + n]
        start += m * n + n


def generator_layers(params):
    h = np.array([[0.5, -1.0], [0.25, 0.75]])
    for W, b in layer_weights(params, (2, 2, 1)):
        if W.ndim != 2:
            raise ValueError("a layer's weights are a matrix")
        h = np.tanh(h @ W + b)
    assert h.shape == (2, 1), "one output per row"
    return np.sum(h ** 2)
