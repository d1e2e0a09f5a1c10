"""Unoptimized code writes a container's first sensitivity term as a plain assignment,
``s_1 = (0.0, s_logdet)``, unless a later line adds into (or reads) an item of it: only
there must the 0.0 placeholder be zeros of the structure (session 35's crash of
``c.put(v); c.get()``). On main, 3 of these 4 tests fail (the add form was everywhere).
"""

import numpy as np

import s2sad


def unpacked_slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return 2.0 * logdet


class Store:
    def __init__(self):
        self.items = []

    def put(self, v):
        self.items.append(v)

    def get(self):
        return self.items[-1]


def put_then_get(x):
    c = Store()
    c.put(x * 2.0)
    return np.sum(c.get() * x)


A = np.array([[2.0, 0.5], [0.3, 1.5]])


def test_a_pair_with_an_unread_part_is_assigned_plainly():
    grad = s2sad.grad(unpacked_slogdet, optimize=False)
    np.testing.assert_allclose(grad(A), 2.0 * np.linalg.inv(A).T, rtol=1e-12)
    assert "    s_1 = (0.0, s_logdet)\n" in grad.source, grad.source
    assert "add_sens" not in grad.source, grad.source


def test_the_plain_first_term_is_not_started_from_zeros():
    source = s2sad.grad(unpacked_slogdet, optimize=False).source
    assert "s_a, s_logdet = [0.0] * 2" in source, source


def test_an_item_added_later_keeps_the_add_into_zeros():
    x = np.array([1.0, 2.0, -0.5])
    grad = s2sad.grad(put_then_get, optimize=False)
    np.testing.assert_allclose(grad(x), 4.0 * x, rtol=1e-12)
    assert "s_c__items_1 = add_sens(s_c__items_1, s_6[0])" in grad.source, grad.source


def test_a_display_read_by_item_later_is_assigned_plainly():
    source = s2sad.grad(put_then_get, optimize=False).source
    assert "    s_6 = (0.0, s__c__h0)\n" in source, source
