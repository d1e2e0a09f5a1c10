"""A held object given to a one-line helper (object_helpers, session 36) where the helper
is not the place to inline it: the helper has a rule (``custom_vjp``), or hands the object
on whole to another call. The call stays as written, so the error keeps its precise words
and line. Both tests fail on merge36 (the helper was inlined: the rule was bypassed, and
the error named the caller's line, not the helper's)."""

import inspect

import numpy as np
import pytest

import s2sad
from test_higher_order import central_differences


def sampled(f, x):
    """``f(2.0) * x``: ``f`` read at one point, its derivative not taken."""
    return f(2.0) * x


@s2sad.custom_vjp(sampled)
def sampled_vjp(g, ans, f, x):
    return None, g * f(2.0)


class Gain:
    def __init__(self, a):
        self.a = a

    def __call__(self, v):
        return self.a * v

    def of(self, v):
        return self.a * np.sin(v)


def _line(func):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if "# <- here" in text)


def a_ruled_helper_given_a_method(a):
    g = Gain(a)
    return sampled(g.of, 0.5)  # <- here


def test_a_helper_with_a_rule_is_its_rule():
    """Inlined, the rule was bypassed: ``g.of`` was refused as a held function, the words
    about the rule's argument lost."""
    assert float(central_differences(a_ruled_helper_given_a_method, (0.7,), 0,
                                     eps=1e-6)) != 0.0
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(a_ruled_helper_given_a_method)(0.7)
    assert info.value.lineno == _line(a_ruled_helper_given_a_method)
    assert "has no derivative with respect to its argument 'f'" in str(info.value)


def _hands_on(f):
    return sampled(f, 0.5) + 1.0  # <- here


def an_object_handed_on_whole(a):
    g = Gain(a)
    return _hands_on(g)


def test_an_object_handed_on_whole_is_refused_at_the_helper_line():
    assert float(central_differences(an_object_handed_on_whole, (0.7,), 0, eps=1e-6)) != 0.0
    with pytest.raises(s2sad.NoDerivativeError) as info:
        s2sad.grad(an_object_handed_on_whole)(0.7)
    assert info.value.lineno == _line(_hands_on)
    assert "has no derivative with respect to its argument 'f'" in str(info.value)
