"""Sums a loop's reverse sweep adds up pass by pass, computed a few passes at a time.

The reverse sweep of an RNN-like loop adds to each weight's sensitivity in every pass:
``s_Wh += h.T @ s_4`` (a matrix product) and ``s_b += unbroadcast(s_5, b)`` (a sum over
the batch). With small arrays each of those costs mostly NumPy's overhead per call, a
few microseconds, and the loop pays it twice per term per pass (the product or sum,
then the ``+=``). Collected, the terms of many passes make one call:

* the products of ``(m, n)`` by ``(m, p)`` matrices are one product of the matrices
  stacked row by row: ``sum(a.T @ b) == concatenate(a).T @ concatenate(b)``;
* the sums over a leading axis are one sum of the arrays stacked along it.

A term waits only when it is small (at most ``SMALL`` elements; a bigger one is worth
its call and is added at once) and at most ``WAITING`` terms wait, so the memory held
stays small however long the loop. Terms that cannot be stacked (other ranks, shapes
that change from pass to pass) are added one by one, as the loop would have. The
result is the loop's own sum, up to the order of the additions (rounding).

>>> rng = np.random.default_rng(0)
>>> pairs = [(rng.standard_normal((4, 3)), rng.standard_normal((4, 2))) for _ in range(5)]
>>> products = ProductSum()
>>> for a, b in pairs:
...     products.add(a, b)
>>> bool(np.allclose(products.total(), sum(a.T @ b for a, b in pairs)))
True
>>> sums = UnbroadcastSum()
>>> for _, b in pairs:
...     sums.add(b, np.zeros(2))
>>> bool(np.allclose(sums.total(), sum(b.sum(axis=0) for _, b in pairs)))
True
>>> ProductSum().total()  # (a loop that never ran adds nothing)
0.0
"""

from __future__ import annotations

from operator import countOf

import numpy as np  # noqa: F401  (the doctests use it)

from ..backends import array_module, plain_array
from . import _ndim, _shape, unbroadcast

SMALL = 4096  # elements (of a product's two factors): a term this small waits
WAITING = 32  # terms that wait at most

_stackable = plain_array  # a NumPy or CuPy array (not a subclass: a matrix, a masked array)


def _one_type(arrays: list) -> bool:
    """Are all ``arrays`` of the first one's type?"""
    return countOf(map(type, arrays), type(arrays[0])) == len(arrays)


class ProductSum:
    """``sum(a.T @ b)`` over the pairs ``add(a, b)`` was given, read by ``total()``.

    Pairs of small 2-d arrays wait and are multiplied together, stacked; any other
    pair is multiplied at once (or, among waiting ones, alone).

    >>> products = ProductSum()
    >>> products.add(np.ones((2, 3)), np.ones((2, 1)))
    >>> products.add(np.ones((5, 3)), np.ones((5, 1)))
    >>> products.total()
    array([[7.],
           [7.],
           [7.]])
    >>> products.add(np.ones(3), np.ones(3))  # (1-d: a number, added at once)
    >>> products.total()
    array([[10.],
           [10.],
           [10.]])
    """

    __slots__ = ("lefts", "rights", "sum")

    def __init__(self):
        self.lefts: list = []
        self.rights: list = []
        self.sum = 0.0

    def add(self, a, b) -> None:
        if _stackable(a) and _stackable(b) and a.ndim == 2 and b.ndim == 2 and \
                a.size + b.size <= SMALL:  # (whether the pairs stack, _multiply checks)
            lefts = self.lefts
            lefts.append(a)
            self.rights.append(b)
            if len(lefts) >= WAITING:
                self._multiply()
        else:  # (the small ones before it first, in the loop's order)
            if self.lefts:
                self._multiply()
            self.sum = self.sum + a.T @ b

    def _multiply(self) -> None:
        lefts, rights = self.lefts, self.rights
        self.lefts, self.rights = [], []
        if _one_type(lefts + rights):
            xp = array_module(lefts[0])
            try:  # (concatenate checks that the columns agree; the rows must agree pair
                # by pair; other ranks than 2 are no stack of rows)
                if list(map(len, lefts)) == list(map(len, rights)):
                    left, right = xp.concatenate(lefts), xp.concatenate(rights)
                    if left.ndim == 2 and right.ndim == 2:
                        self.sum = self.sum + left.T @ right
                        return
            except (TypeError, ValueError):  # (a number; columns that change)
                pass
        for a, b in zip(lefts, rights):
            self.sum = self.sum + a.T @ b

    def total(self):
        if self.lefts:
            self._multiply()
        return self.sum


class UnbroadcastSum:
    """``sum(unbroadcast(g, like))`` over the ``add(g, like)`` calls, read by
    ``total()``.

    Small arrays ``g`` of one shape that ``unbroadcast`` sums along their first axis
    (``g`` has more axes than ``like``) wait, and are summed together, stacked along it.

    >>> sums = UnbroadcastSum()
    >>> for rows in (1, 2, 3):
    ...     sums.add(np.ones((rows, 2)), np.zeros(2))
    >>> sums.total()
    array([6., 6.])
    >>> sums.add(np.ones((2, 2)), np.zeros((2, 1)))  # (another shape: summed alone)
    >>> sums.total()
    array([[8., 8.],
           [8., 8.]])
    """

    __slots__ = ("terms", "like", "sum")

    def __init__(self):
        self.terms: list = []
        self.like = None
        self.sum = 0.0

    def add(self, g, like) -> None:
        # a small array summed along its first axis waits (whether the terms stack, _sum
        # checks); the waiting ones are summed first where this one does not join them
        waits = _stackable(g) and g.size <= SMALL and g.ndim > _ndim(like)
        if self.terms and not (waits and (like is self.like or
                                          _shape(like) == _shape(self.like))):
            self._sum()
        if waits:
            terms = self.terms
            terms.append(g)
            self.like = like
            if len(terms) >= WAITING:
                self._sum()
        else:
            self.sum = self.sum + unbroadcast(g, like)

    def _sum(self) -> None:
        terms, like = self.terms, self.like
        self.terms = []
        if len(terms) > 1 and _one_type(terms):
            try:  # (it checks that all have the first one's trailing axes)
                stacked = array_module(terms[0]).concatenate(terms)
            except ValueError:
                pass
            else:
                self.sum = self.sum + unbroadcast(stacked, like)
                return
        for g in terms:
            self.sum = self.sum + unbroadcast(g, like)

    def total(self):
        if self.terms:
            self._sum()
        return self.sum
