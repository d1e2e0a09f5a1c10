"""Derivatives of a function with ``*args`` or ``**kwargs``: one flat function per call form.

``s2sad.grad(f)`` of ``def f(w, *args, **kwargs)``, called as ``g(w, a, b, scale=2.0)``,
differentiates the flat function ``def f(w, args_0, args_1, *, scale): return f(w,
args_0, args_1, scale=scale)``, made once for two extra positional arguments and the
keyword ``scale``. s2sad inlines ``f`` there, ``args`` the tuple ``(args_0, args_1)`` and
``kwargs`` the dict ``{"scale": scale}``, as for any helper with star parameters.

``wrt`` names what is differentiated, as the call passes it:

- an index counts the positional arguments as passed: ``wrt=2`` is ``args[1]`` above;
- a name is a parameter, or a keyword passed through ``**kwargs`` (``wrt="scale"``);
- the star parameter's own name (``wrt="args"``) is every extra positional argument: the
  gradient is a tuple, one per argument (alone, not inside a tuple of ``wrt``).

>>> import numpy as np, s2sad
>>> def total(w, *terms):
...     return np.sum(w * sum(terms))
>>> s2sad.grad(total)(np.ones(2), np.array([1.0, 2.0]), np.array([3.0, 4.0]))
array([4., 6.])
>>> s2sad.grad(total, wrt=2)(np.ones(2), np.array([1.0, 2.0]), np.array([3.0, 4.0]))
array([1., 1.])
"""

from __future__ import annotations

import inspect
import keyword
import os
import threading
import types
import weakref

from .boundary import boundary
from .codegen import register
from .errors import DifferentiationError

_FLAT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # func -> {form: flat}
_LOCK = threading.Lock()
_TARGET = "__s2sad_spread_target__"
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep  # (s2sad's own files)


def variadic(func) -> bool:
    """Does ``func`` (a Python function) take ``*args`` or ``**kwargs``?"""
    if not isinstance(func, types.FunctionType) or hasattr(func, "__s2sad_made__") or \
            func.__code__.co_filename.startswith(_HERE):  # (s2sad's own: a jacobian's)
        return False
    flags = func.__code__.co_flags
    return bool(flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS))


class _Form:
    """How one call passes a variadic function's arguments: the flat parameters."""

    def __init__(self, func, bound: inspect.BoundArguments):
        params = inspect.signature(func).parameters.values()
        self.positional, self.keyword_only = [], []
        self.star = self.double_star = None
        self.extra: list[str] = []     # the flat names of *args's items
        self.keys: list[str] = []      # the keywords passed through **kwargs
        self.values: list = []         # the flat call's positional values
        self.keyword_values: dict = {}
        taken = {p.name for p in params}
        for p in params:
            value = bound.arguments[p.name]
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                self.positional.append(p.name)
                self.values.append(value)
            elif p.kind is p.VAR_POSITIONAL:
                self.star = p.name
                for i, item in enumerate(value):
                    name = f"{p.name}_{i}"
                    while name in taken:
                        name += "_"
                    taken.add(name)
                    self.extra.append(name)
                    self.values.append(item)
            elif p.kind is p.KEYWORD_ONLY:
                self.keyword_only.append(p.name)
                self.keyword_values[p.name] = value
            else:
                self.double_star = p.name
                for key, item in value.items():
                    if not key.isidentifier() or keyword.iskeyword(key) or key in taken:
                        raise DifferentiationError(
                            f"cannot differentiate {func.__qualname__} called with the keyword "
                            f"{key!r} in **{p.name}: s2sad names each keyword passed there as "
                            "a parameter", hint="Pass keywords that are Python names and not "
                            "the names of the function's other parameters.")
                    self.keys.append(key)
                    self.keyword_values[key] = item
        self.key = (len(self.extra), tuple(self.keys))

    def flat(self, func):
        """The flat function for this form (made once per function and form)."""
        with _LOCK:
            forms = _FLAT.setdefault(func, {})
            made = forms.get(self.key)
            if made is None:
                made = forms[self.key] = self._make(func)
        return made

    def _make(self, func):
        positional = self.positional + self.extra
        keywords = self.keyword_only + self.keys
        params = ", ".join(positional + (["*"] + keywords if keywords else []))
        passed = ", ".join(positional + [f"{k}={k}" for k in keywords])
        name = func.__name__
        text = f"def {name}({params}):\n    return {_TARGET}({passed})\n"
        filename = f"<s2sad: {func.__qualname__} called with {len(self.extra)} extra " \
                   f"positional argument(s){' and ' + ', '.join(self.keys) if self.keys else ''}>"
        register(filename, text)
        namespace = {_TARGET: func}
        exec(compile(text, filename, "exec"), namespace)
        flat = namespace[name]
        flat.__qualname__ = func.__qualname__
        flat.__module__ = func.__module__
        flat.__s2sad_spread__ = func  # (its own line is not shown in errors: the user's are)
        return flat

    def wrt(self, func, wrt):
        """``wrt`` (of the variadic function, as the call passes its arguments) in the flat
        function's parameters."""
        if isinstance(wrt, (tuple, list)):
            items = [self.wrt(func, w) for w in wrt]
            if any(isinstance(i, tuple) for i in items):
                raise DifferentiationError(
                    f"wrt={wrt!r} names *{self.star} inside a tuple: s2sad differentiates "
                    f"*{self.star} as a whole only alone (wrt={self.star!r})",
                    hint="Name each position instead, counting the positional arguments as "
                         "the call passes them (wrt=(0, 1, 2)).")
            return type(wrt)(items)
        positional = self.positional + self.extra
        if isinstance(wrt, int) and not isinstance(wrt, bool):
            if not -len(positional) <= wrt < len(positional):
                raise DifferentiationError(
                    f"wrt={wrt} is out of range: this call of {func.__qualname__} passes "
                    f"{len(positional)} positional argument{'s' * (len(positional) != 1)}")
            return positional[wrt]
        if wrt == self.star or wrt == self.double_star:
            names = tuple(self.extra if wrt == self.star else self.keys)
            if not names:
                raise DifferentiationError(
                    f"wrt={wrt!r}: this call of {func.__qualname__} passes nothing in "
                    f"{'*' if wrt == self.star else '**'}{wrt}")
            return names
        return wrt


class SpreadDerivative:
    """The derivative ``makers`` make (``[(grad, args, kwargs), ...]``, innermost first) of
    the variadic ``func``: at each call, the one of its flat function for the call's form."""

    def __init__(self, func, makers: tuple):
        self.func = func
        self.makers = makers
        self._made: dict = {}
        self._last = None
        self.__name__ = getattr(makers[-1][0], "__name__", "derivative") + "_" + func.__name__
        self.__qualname__ = self.__name__
        self.__wrapped__ = func

    def _derivative(self, args, kwargs):
        try:
            bound = inspect.signature(self.func).bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.__name__}(): {exc}") from None
        bound.apply_defaults()
        form = _Form(self.func, bound)
        made = self._made.get(form.key)
        if made is None:
            made = form.flat(self.func)
            for make, margs, mkwargs in self.makers:
                if margs:
                    margs = (form.wrt(self.func, margs[0]),) + tuple(margs[1:])
                else:
                    mkwargs = dict(mkwargs, wrt=form.wrt(self.func, mkwargs.get("wrt", 0)))
                made = make(made, *margs, **mkwargs)
            self._made[form.key] = made
        self._last = made
        return made, form

    def _split(self, args, kwargs):
        """The function's arguments, and what the outermost derivative takes after them
        (``hvp``'s direction: ``v=...``, else the last positional argument)."""
        if not getattr(self.makers[-1][0], "__s2sad_direction__", False):
            return args, kwargs, {}
        if "v" in kwargs:
            kwargs = dict(kwargs)
            return args, kwargs, {"v": kwargs.pop("v")}
        if not args:
            raise TypeError(f"{self.__name__}(): give the direction v last, after the "
                            f"arguments of {self.func.__name__} (or as v=...)")
        return args[:-1], kwargs, {"v": args[-1]}

    @boundary
    def __call__(self, *args, **kwargs):
        args, kwargs, direction = self._split(args, kwargs)
        made, form = self._derivative(args, kwargs)
        return made(*form.values, **form.keyword_values, **direction)

    @boundary
    def source_for(self, *args, **kwargs) -> str:
        """The generated source for these arguments (of the flat function's derivative)."""
        made, form = self._derivative(args, kwargs)
        return made.source_for(*form.values, **form.keyword_values)

    @property
    def source(self) -> str:
        if self._last is None:
            raise DifferentiationError(
                f"{self.__name__} has no source before its first call: a function with "
                "*args or **kwargs is compiled for the arguments a call passes",
                hint="Call it, or use .source_for(*args, **kwargs).")
        return self._last.source

    def __repr__(self) -> str:
        return f"<s2sad {self.__name__} (of a function with *args or **kwargs)>"


def derivative(make, func, args: tuple, kwargs: dict):
    """``make(func, *args, **kwargs)`` for ``func`` variadic or a :class:`SpreadDerivative`."""
    if isinstance(func, SpreadDerivative):
        return SpreadDerivative(func.func, func.makers + ((make, args, kwargs),))
    return SpreadDerivative(func, ((make, args, kwargs),))
