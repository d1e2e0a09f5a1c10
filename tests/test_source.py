"""Reading a function's source (s2sad/source.py): the lines cut by indentation give the
tree inspect's tokenizer gives, for layouts that end a function early or late."""

import importlib.util
import inspect
import textwrap

import gast
import numpy as np
import pytest

import s2sad
from s2sad.source import FunctionSource, _lines_by_indentation

MODULE = '''
import functools
import numpy as np


def plain(x):
    return x * x


def one_line(x): return 3.0 * x


@functools.lru_cache(maxsize=None)
def cached_name():
    return 1


def decorated_helper(f):
    return f


@decorated_helper
@decorated_helper
def decorated(x):
    return np.sin(x)


def black_signature(
    x,
    y=2.0,
):
    return x * y


def margin_string(x):
    note = """
a line at the left margin, inside a string
"""
    return x * len(note)


def margin_bracket(x):
    y = (x +
2.0)
    return y * y


def margin_continuation(x):
    y = x + \\
1.0
    return y * x


def comments_at_the_margin(x):
    y = x * 2.0
# a comment at the margin, inside the function
    return y * x
# a comment after it


def outer(x):
    def inner(z):
        return z * z
    return inner(x) + x


class Holder:
    @staticmethod
    def method(x):
        return x * 4.0
'''

NAMES = ["plain", "one_line", "decorated", "black_signature", "margin_string",
         "margin_bracket", "margin_continuation", "comments_at_the_margin"]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    path = tmp_path_factory.mktemp("layouts") / "layouts.py"
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location("layouts", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _inspect_tree(func):
    lines, first = inspect.getsourcelines(func.__code__)
    module = gast.parse(textwrap.dedent("".join(lines)))
    gast.increment_lineno(module, first - 1)
    return module.body[0]


def _functions(module):
    inner = module.outer.__code__.co_consts
    inner = next(c for c in inner if getattr(c, "co_name", None) == "inner")
    return [getattr(module, n) for n in NAMES] + [module.outer, module.Holder.method,
                                                   type(module.outer)(inner, {})]


def test_the_tree_is_the_one_inspect_gives(module):
    for func in _functions(module):
        mine = FunctionSource._read(func)[1]
        assert gast.dump(mine, include_attributes=True) == \
            gast.dump(_inspect_tree(func), include_attributes=True), func.__name__


@pytest.mark.parametrize("name, cut", [
    ("plain", True), ("one_line", True), ("decorated", True), ("black_signature", True),
    ("comments_at_the_margin", True),
    ("margin_string", False), ("margin_bracket", False), ("margin_continuation", False)])
def test_where_indentation_alone_finds_the_end(module, name, cut):
    """Where the cut does not parse (a line at the margin inside a string or a bracket),
    the source comes from inspect: the same tree, a little later."""
    lines, first = _lines_by_indentation(getattr(module, name).__code__)
    try:
        gast.parse(textwrap.dedent("".join(lines)))
        parses = True
    except SyntaxError:
        parses = False
    assert parses is cut


def test_gradients_of_the_layouts(module):
    x = 1.3
    for name, want in [("plain", 2 * x), ("one_line", 3.0), ("decorated", np.cos(x)),
                       ("black_signature", 2.0), ("margin_string", 44.0),
                       ("margin_bracket", 2 * (x + 2.0)), ("margin_continuation", 2 * x + 1.0),
                       ("comments_at_the_margin", 4 * x), ("outer", 2 * x + 1.0)]:
        assert s2sad.grad(getattr(module, name))(x) == pytest.approx(want), name
    assert s2sad.grad(module.Holder.method)(x) == pytest.approx(4.0)


def test_the_indentation_cut_needs_no_tokenizer(module, monkeypatch):
    """The common layouts are read without inspect (whose tokenizer takes a tenth of a
    long function's build); a line at the margin inside a string still goes to it."""
    import s2sad.source as source

    def refuse(code):
        raise AssertionError("inspect.getsourcelines was called")

    monkeypatch.setattr(source.inspect, "getsourcelines", refuse)
    for name in ["plain", "one_line", "decorated", "black_signature",
                 "comments_at_the_margin"]:
        FunctionSource._read(getattr(module, name))
    with pytest.raises(AssertionError, match="getsourcelines"):
        FunctionSource._read(module.margin_string)
