"""How derivative rules are registered and looked up.

A rule is an ordinary Python function ``adjoint(g, ans, *args, **kwargs)`` that
returns the contribution of ``g`` (the sensitivity of ``ans``) to each
differentiable argument, in order, as one expression (``None`` meaning zero).
It can be called directly with arrays, and the compiler inlines its ``return``
expression into the generated source, so rules read like the code they produce:

>>> import numpy as np, s2sad
>>> rule = lookup(np.sin)
>>> rule.adjoint(2.0, np.sin(0.0), 0.0)
np.float64(2.0)
>>> rule.parameters
('g', 'ans', 'x')

``shape`` tells the compiler how the result's shape relates to the arguments':
``"elementwise"`` (the broadcast of all the array arguments, positional and
keyword, but those of ``NOT_BROADCAST``), ``"scalar"`` (always a scalar),
``"reduce"`` (a scalar when called without ``axis`` and without ``keepdims``),
``"sequence"`` (a list or tuple of arrays, like ``np.split``: the rule's ``g`` is
then a list) or ``"other"``. A wrong ``"elementwise"`` makes the compiler drop a
needed ``unbroadcast``; when unsure, say ``"other"``.
"""

from __future__ import annotations

import dataclasses
import inspect
import linecache
import sys
import textwrap
import weakref
from dataclasses import dataclass, field
from typing import Callable

import gast

from .runtime import public_module

SHAPES = ("elementwise", "scalar", "reduce", "sequence", "other")
# the keyword arguments of an "elementwise" function that take no part in broadcasting
NOT_BROADCAST = frozenset({"dtype", "out", "casting", "order", "subok", "signature", "copy",
                           "device"})


@dataclass
class Rule:
    func: object
    adjoint: Callable | None
    shape: str
    differentiable: bool = True
    _parsed: tuple | None = field(default=None, repr=False)
    tangent: Callable | None = None   # forward mode: ``tangent(g, ans, *args)``, see deftangent
    linear: tuple | None = None       # forward mode: argument positions the function is linear in
    joint: bool = False               # linear in those arguments together (not one by one)
    custom: bool = False              # registered by the user (s2sad.custom_vjp...)
    builtin: bool = field(default_factory=lambda: _filling_own_table())  # s2sad's own table
    dtype: tuple | None = None        # (name, position): the argument setting the result's dtype
    result: str | tuple | None = None  # its dtype's kind without one: "i", "b", "f", or the
    # ((name, position), ...) arguments whose dtypes it follows (NumPy's promotion); see defresult
    _parsed_tangent: tuple | None = field(default=None, repr=False)
    refuses: dict = field(default_factory=dict)  # parameter -> advice: no derivative in it
    accepts: dict = field(default_factory=dict)  # parameter -> (values, advice): written for
    complex: "Rule | None" = None  # the rules for programs with complex values (defcomplex)

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(inspect.signature(self.adjoint).parameters)

    @property
    def facts(self) -> "Facts":
        """What the function does to memory (see :func:`facts`); a rule's function is
        known: it changes nothing and returns a new value unless registered otherwise."""
        return facts(self.func)

    @property
    def name(self) -> str:
        return describe_function(self.func)

    def parsed(self) -> tuple[list, object]:
        """``(statements before the return, returned expression)`` of the adjoint, as gast."""
        if self._parsed is None:
            self._parsed = _parse_rule(self.adjoint)
        return self._parsed

    def parsed_tangent(self) -> tuple[list, object]:
        """Like :meth:`parsed`, for the tangent rule."""
        if self._parsed_tangent is None:
            self._parsed_tangent = _parse_rule(self.tangent)
        return self._parsed_tangent

    @property
    def tangent_parameters(self) -> tuple[str, ...]:
        return tuple(inspect.signature(self.tangent).parameters)

    def has_tangent(self) -> bool:
        """Does forward mode know this function (a tangent rule, linearity, or a derivation
        from an elementwise adjoint)?"""
        return not self.differentiable or self.tangent is not None or \
            self.linear is not None or self.derived_tangent()

    def derived_tangent(self) -> bool:
        """Elementwise functions have a diagonal Jacobian: their tangent is their adjoint's
        expression with ``g`` the argument's tangent and ``unbroadcast`` left out."""
        if self.adjoint is None or self.custom:
            return False
        if self.shape == "elementwise":
            return True
        module = getattr(self.func, "__module__", None) or ""
        return self.shape == "scalar" and (module == "math" or self.func is float)


class RuleDecorator:
    """What ``s2sad.defvjp(f)`` (``deftangent``, ``custom_vjp``, ``custom_jvp``) returns:
    the decorator of ``f``'s rule, a ``def``. Called on anything else, or asked for JAX's
    ``f.defvjp(fwd, bwd)``, it says how s2sad's rules are written, where JAX's
    ``@custom_vjp`` over the function itself would otherwise register an array as a rule.

    >>> import s2sad
    >>> def clip(x):
    ...     return x
    >>> decorator = s2sad.custom_vjp(clip)   # JAX's @custom_vjp over clip does this
    >>> decorator(2.0)
    Traceback (most recent call last):
    ...
    TypeError: s2sad.custom_vjp(clip) decorates the rule of clip, a `def`, and was called on a value of type float. Write the rule under it:
        @s2sad.custom_vjp(clip)
        def clip_vjp(g, ans, x):
            return ...   # one expression per argument of clip
    (Placed over clip itself, as JAX's @custom_vjp is, it takes clip's name: put it over the rule.)
    """

    __slots__ = ("maker", "funcs", "register")

    def __init__(self, maker: str, funcs: tuple, register: Callable):
        self.maker, self.funcs, self.register = maker, funcs, register

    def __call__(self, rule):
        if not inspect.isfunction(rule):
            raise TypeError(self._advice(f"was called on {_a_kind(rule)}"))
        return self.register(rule)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(self._advice(f"has no .{name}() (JAX's form)"))

    def _advice(self, what: str) -> str:
        names = ", ".join(getattr(f, "__name__", "f") for f in self.funcs) or "f"
        first = getattr(self.funcs[0], "__name__", "f") if self.funcs else "f"
        suffix = "_jvp" if self.maker in ("deftangent", "custom_jvp") else "_vjp"
        params = _rule_parameters(self.funcs[0]) if self.funcs else "x"
        return (f"s2sad.{self.maker}({names}) decorates the rule of {names}, a `def`, and "
                f"{what}. Write the rule under it:\n"
                f"    @s2sad.{self.maker}({names})\n"
                f"    def {first}{suffix}(g, ans, {params}):\n"
                f"        return ...   # one expression per argument of {first}\n"
                f"(Placed over {first} itself, as JAX's @custom_vjp is, it takes {first}'s "
                f"name: put it over the rule.)")


def _a_kind(value) -> str:
    return f"a value of type {type(value).__name__}"


def _rule_parameters(func) -> str:
    try:
        return ", ".join(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return "x"


def custom_vjp(func, *, shape: str = "other"):
    """Decorator: the decorated function is the adjoint (reverse-mode) rule of ``func``.

    ``rule(g, ans, *args)`` has the parameters of ``func`` after ``g`` (the sensitivity of
    the result) and ``ans`` (the result), and returns one expression per argument (a tuple
    for several; ``None`` for an argument with no derivative). Calls of ``func`` in a
    differentiated function are then not inlined: the rule's ``return`` expression is
    written into the generated code with the call's own names. It may call NumPy, ``math``,
    s2sad's helpers, and functions of its own module (read from that module at each call).
    ``shape``: how the result's shape relates to the arguments' (see :mod:`s2sad.registry`;
    ``"other"`` is always safe).

    Example:
        >>> import numpy as np, s2sad
        >>> def softplus(x):
        ...     return np.log1p(np.exp(x))
        >>> @s2sad.custom_vjp(softplus)
        ... def softplus_vjp(g, ans, x):
        ...     return g / (1.0 + np.exp(-x))
        >>> def f(x):
        ...     return np.sum(softplus(x))
        >>> s2sad.grad(f)(np.zeros(2))
        array([0.5, 0.5])
        >>> "np.exp(-x)" in s2sad.grad(f).source
        True
    """
    assert shape in SHAPES, shape

    def register(adjoint):
        defvjp(func, shape=shape)(adjoint)
        _RULES[_key(func)].custom = True
        return adjoint
    return RuleDecorator("custom_vjp", (func,), register)


def custom_jvp(func):
    """Decorator: the decorated function is the tangent (forward-mode) rule of ``func``.

    ``rule(g, ans, *args)`` returns, for each argument, the change of the result when that
    argument changes by ``g`` (its tangent); the contributions of the arguments that vary
    are added. Without one, ``s2sad.jvp`` refuses a call of a function that has only a
    custom adjoint.

    Example:
        >>> import numpy as np, s2sad
        >>> def softplus(x):
        ...     return np.log1p(np.exp(x))
        >>> @s2sad.custom_vjp(softplus)
        ... def softplus_vjp(g, ans, x):
        ...     return g / (1.0 + np.exp(-x))
        >>> @s2sad.custom_jvp(softplus)
        ... def softplus_jvp(g, ans, x):
        ...     return g / (1.0 + np.exp(-x))
        >>> def f(x):
        ...     return softplus(x) * 2.0
        >>> print(s2sad.jvp(f)(0.0)[1](1.0))
        1.0
    """
    def register(tangent):
        deftangent(func)(tangent)
        _RULES[_key(func)].custom = True
        return tangent
    return RuleDecorator("custom_jvp", (func,), register)


def _parse_rule(function) -> tuple[list, object]:
    source = textwrap.dedent(inspect.getsource(function))
    module = gast.parse(source)
    tree = next((s for s in module.body if isinstance(s, gast.FunctionDef)), None)
    if tree is None:
        raise TypeError(f"cannot read the rule {function!r}: it is not a `def`")
    body = [s for s in tree.body
            if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant))]
    if not body or not isinstance(body[-1], gast.Return) or \
            not all(isinstance(s, gast.Assign) for s in body[:-1]):
        raise TypeError(f"rule {function.__qualname__} must be assignments "
                        "followed by one `return`")
    return body[:-1], body[-1].value


_RULES: dict[object, Rule] = {}
_PENDING: dict[object, Rule] = {}  # facts declared before the function's adjoint rule
_LOADING_BUILTINS = True  # until s2sad.rules has filled the table (then: the user's rules)
LISTENERS: list = []  # called when the user changes the table, which built gradients read


def changed() -> None:
    """The user registered a rule: gradients built before are built again at their next
    call (a rule registered anew, corrected, replaces the one they inlined)."""
    _DERIVED.clear()  # (a function given a rule is known now)
    _MERGED.clear()
    if not _filling_own_table():
        for listener in LISTENERS:
            listener()


def builtins_loaded() -> None:
    """Rules registered from now on are the user's (``registered()`` leaves them out)."""
    global _LOADING_BUILTINS
    _LOADING_BUILTINS = False


def _filling_own_table() -> bool:
    """Is the rule being registered s2sad's own: while ``s2sad.rules`` loads, or from one of
    its modules loaded later (an optional library's rules, see ``optional``)?"""
    if _LOADING_BUILTINS:
        return True
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back  # (past this module's frames: the dataclass's and def*'s)
    return frame is not None and \
        (frame.f_globals.get("__name__") or "").startswith("s2sad.rules.")


# Rule groups of optional libraries (SciPy), each loaded once its library is imported: a
# NumPy program does not pay SciPy's import (most of s2sad's own, before), and a program
# calling ``scipy.special.erf`` has imported ``scipy.special``, so its rules are there.
_OPTIONAL: list = []  # [(library module, load)], not loaded yet
_OPTIONAL_LOADING = False


def optional(library: str, load: Callable) -> None:
    """Call ``load()`` (which registers rules) once the module ``library`` is imported, by
    the program or by anything else: before the table is next read, or now if it is."""
    _OPTIONAL.append((library, load))
    load_imported()


def load_imported(install: bool = False) -> None:
    """Load the rule groups of the optional libraries imported by now; ``install``: import
    each library that is installed first (every rule s2sad has, as ``supported()`` lists).

    >>> load_imported()  # (a cheap test of ``sys.modules`` while some are not loaded)
    """
    global _OPTIONAL_LOADING, _LOADING_BUILTINS
    if not _OPTIONAL or _OPTIONAL_LOADING:
        return
    if not install:  # (read at each look-up of a rule: most often none is imported yet)
        modules = sys.modules
        for library, _ in _OPTIONAL:
            if library in modules:
                break
        else:
            return
    _OPTIONAL_LOADING = True  # (rules read while a group loads do not load another)
    filling, _LOADING_BUILTINS = _LOADING_BUILTINS, True  # (no gradient built read them)
    try:
        for entry in list(_OPTIONAL):
            library, load = entry
            if library not in sys.modules:
                if not install:
                    continue
                try:
                    __import__(library)
                except ImportError:
                    _OPTIONAL.remove(entry)
                    continue
            _OPTIONAL.remove(entry)
            load()
            _DERIVED.clear()
            _MERGED.clear()
    finally:
        _OPTIONAL_LOADING, _LOADING_BUILTINS = False, filling


def _entry(func) -> Rule:
    """The rule entry of ``func`` that a fact is written into: its rule, or one kept
    aside until its adjoint (or ``nondifferentiable``) is declared, so facts and rules
    may be declared in any order (a rule module imported before another)."""
    if _OPTIONAL:
        load_imported()  # (s2sad's rule of a function first: a user's replaces it)
    rule = _RULES.get(_key(func))
    if rule is None:
        rule = _PENDING.setdefault(_key(func), Rule(func, None, "other"))
    return rule


def _kept(old: Rule | None, rule: Rule) -> Rule:
    """``rule`` with the facts declared in ``old`` (an entry it replaces) kept."""
    if old is not None:
        rule.tangent, rule.linear, rule.joint = old.tangent, old.linear, old.joint
        rule.refuses, rule.accepts = old.refuses, old.accepts
        rule.dtype, rule.result = old.dtype, old.result
        rule.complex = old.complex
    return rule


def _key(func):
    try:
        hash(func)
        return func
    except TypeError:
        return id(func)


def defvjp(*funcs, shape: str = "elementwise"):
    """Register the decorated function as the adjoint rule of each of ``funcs``.

    The rule ``adjoint(g, ans, *args)`` returns one expression per argument of the
    function (``None`` for no derivative). A tangent rule registered before for the same
    function is kept.

    Example (the rule is written into the gradient of a function that calls ``cube``):
        >>> import s2sad
        >>> def cube(x):
        ...     return x ** 3
        >>> @s2sad.defvjp(cube)
        ... def cube_vjp(g, ans, x):
        ...     return 3.0 * g * x ** 2
        >>> def f(x):
        ...     return cube(x) + x
        >>> s2sad.grad(f)(2.0)
        13.0
        >>> print(s2sad.grad(f).source_for(2.0))
        def grad_f(x):
            t_1 = cube(x)
            s_x = 1.0
            s_x += 3.0 * x ** 2
            return s_x
        <BLANKLINE>
    """
    assert shape in SHAPES, shape

    def register(adjoint):
        if _OPTIONAL:
            load_imported()
        for func in funcs:
            old = _RULES.get(_key(func)) or _PENDING.pop(_key(func), None)
            rule = _kept(old, Rule(func, adjoint, shape))
            rule.custom = old is not None and old.custom
            _RULES[_key(func)] = rule
        changed()
        return adjoint
    return RuleDecorator("defvjp", funcs, register)


_REDUCTION_KEYWORDS = {  # (np.max(x, where=m, initial=v): what computes it, with rules)
    "max": "np.maximum(np.max(np.where(m, x, v)), v)",
    "min": "np.minimum(np.min(np.where(m, x, v)), v)",
    "prod": "v * np.prod(np.where(m, x, 1.0))"}


def call_hint(func, exc: Exception | None = None) -> str:
    """What to do about a call that ``func``'s rule cannot take (an error's last line);
    ``exc``: the ``TypeError`` binding the call to the rule raised.

    >>> import numpy as np
    >>> call_hint(np.max, TypeError("got an unexpected keyword argument 'initial'"))
    "s2sad's rule for numpy.max takes no initial=: for np.max(x, where=m, initial=v) write np.maximum(np.max(np.where(m, x, v)), v) (leave out the parts not given)."
    """
    keyword = str(exc).rpartition("unexpected keyword argument ")[2].strip("'") \
        if exc is not None and "unexpected keyword argument " in str(exc) else None
    name = describe_function(func)
    short = name.rpartition(".")[2].removeprefix("a").removeprefix("nan")
    if keyword in ("initial", "where") and name.startswith("numpy.") and \
            short in _REDUCTION_KEYWORDS:
        return (f"s2sad's rule for {name} takes no {keyword}=: for np.{short}(x, where=m, "
                f"initial=v) write {_REDUCTION_KEYWORDS[short]} (leave out the parts not "
                "given).")
    if keyword is not None:
        return (f"s2sad's rule for {name} takes no {keyword}=: leave it out, or register a "
                "rule that takes it with @s2sad.defvjp.")
    if func is max or func is min:
        return (f"Its rules take two numbers, {func.__name__}(x, y), or one list or 1-d "
                f"array, {func.__name__}(xs), with no key or default; for the "
                f"{'largest' if func is max else 'smallest'} item otherwise, "
                f"write np.{func.__name__}(xs).")
    if describe_function(func) == "numpy.linalg.svd":  # (compute_uv=False: no factors)
        return ("Its rule takes the three factors, u, s, vh = np.linalg.svd(a, ...); for the "
                "singular values alone write np.linalg.svdvals(a) (NumPy 2), or "
                "_, s, _ = np.linalg.svd(a, full_matrices=False).")
    return "Check the call's arguments."


def nondifferentiable(*funcs, shape: str = "other"):
    """Declare ``funcs`` to have a zero derivative (integer valued, boolean, shapes...).

    Also a decorator: ``@s2sad.nondifferentiable`` above a ``def`` marks that function
    (its calls are then neither inlined nor differentiated) and returns it unchanged.

    Example:
        >>> import s2sad
        >>> @s2sad.nondifferentiable
        ... def bucket(x):
        ...     return float(int(x * 10)) / 10
        >>> def f(x):
        ...     return x * bucket(x)
        >>> s2sad.grad(f)(0.25)
        0.2
    """
    if len(funcs) == 1 and isinstance(funcs[0], str):  # @nondifferentiable("elementwise")?
        raise TypeError("nondifferentiable takes functions; pass shape= by keyword")
    assert shape in SHAPES, shape
    if _OPTIONAL:
        load_imported()
    for func in funcs:
        old = _RULES.get(_key(func)) or _PENDING.pop(_key(func), None)
        _RULES[_key(func)] = _kept(old, Rule(func, None, shape, differentiable=False))
    changed()
    return funcs[0] if len(funcs) == 1 else None


def deftangent(*funcs):
    """Register the decorated function as the tangent (forward-mode) rule of ``funcs``.

    ``tangent(g, ans, *args)`` has the parameters of the adjoint rule and returns one
    expression per argument: the contribution to the result's tangent of that argument's
    tangent, which is ``g`` in that expression. The contributions of the arguments that
    vary are added. Rules and facts may be declared in any order.

    Example:
        >>> import numpy as np
        >>> rule = lookup(np.linalg.inv)
        >>> a = np.array([[2.0, 0.0], [0.0, 4.0]])
        >>> np.allclose(rule.tangent(np.eye(2), np.linalg.inv(a), a), -np.linalg.inv(a) ** 2)
        True
    """
    def register(tangent):
        if _OPTIONAL:
            load_imported()
        for func in funcs:
            rule = _RULES.get(_key(func))
            if rule is None:  # (a tangent alone is a rule: forward mode differentiates it)
                rule = _RULES[_key(func)] = _PENDING.pop(_key(func), None) or \
                    Rule(func, None, "other")
            rule.tangent = tangent
            rule._parsed_tangent = None
        changed()
        return tangent
    return RuleDecorator("deftangent", funcs, register)


def deflinear(*funcs, argnums=(0,), joint: bool = False):
    """Declare ``funcs`` linear in the arguments at ``argnums`` (positions after ``g, ans``
    in the adjoint rule's parameters): their tangent is the same call with the argument
    replaced by its tangent. ``joint``: linear in those arguments together (``linspace``
    in ``start`` and ``stop``), rather than in each one separately (``matmul``).

    Example:
        >>> import numpy as np
        >>> lookup(np.mean).linear
        (0,)
    """
    for func in funcs:
        rule = _entry(func)
        rule.linear = tuple(argnums)
        rule.joint = joint
    changed()


def refuse_function(*funcs, advice: str):
    """Declare that ``funcs`` have no rule, on purpose: a call on a value that depends on
    the differentiated arguments is refused at its line with ``advice`` (what to write
    instead), not the general advice (a fact: ``Facts.unmodelled``).

    Example:
        >>> def spectrum(a): ...
        >>> refuse_function(spectrum, advice="Use np.linalg.eigvalsh.")
        >>> unmodelled_advice(spectrum)
        'Use np.linalg.eigvalsh.'
    """
    deffacts(*funcs, unmodelled=advice)
    changed()


def unmodelled_advice(func) -> str:
    """The advice declared by :func:`refuse_function` for ``func``, or ``""``."""
    try:
        found = _FACTS.get(_key(func))
    except TypeError:
        return ""
    return found.unmodelled if found is not None else ""


def refuse_varying(*funcs, **advice):
    """Declare arguments of ``funcs`` the rules do not differentiate, though the result
    depends on them: a call where one of them depends on the differentiated arguments is
    refused at its line, ``advice`` saying what to do instead (never a zero derivative).

    Example:
        >>> import numpy as np
        >>> sorted(lookup(np.linalg.norm).refuses)
        ['ord']
    """
    for func in funcs:
        rule = _entry(func)
        rule.refuses = {**rule.refuses, **advice}
    changed()


def refuse_values(func, parameter: str, accepted: tuple, advice: str):
    """Declare that ``func``'s rules are written for the values ``accepted`` of
    ``parameter`` only (a value, or a type its value has): a call passing another one (a
    literal, a module's constant, or an array) is refused at its line with ``advice``. A
    value known only when the line runs is the rule's to check then.

    Example:
        >>> import numpy as np
        >>> "linear_ramp" in lookup(np.pad).accepts["mode"][0]
        False
    """
    rule = _entry(func)
    rule.accepts = {**rule.accepts, parameter: (tuple(accepted), advice)}
    changed()


def defunwritten(func, what: str, refused: tuple, shape: str = "other"):
    """Declare that ``func`` has no derivative yet in its arguments ``refused`` (a higher
    derivative of a helper): its adjoint and tangent rules are one rule that raises
    ``NoDerivativeError`` when run, for those arguments only; the others have none.

    The rule is written as source (under a file name that ``inspect.getsource`` reads), so
    the compiler inlines it as any other:

    >>> def helper(fun, g, y0, options): ...
    >>> defunwritten(helper, "the adjoint of a solver", ("g", "y0"))
    >>> print(inspect.getsource(lookup(helper).adjoint).splitlines()[1])
        return (None, not_differentiable_yet('the adjoint of a solver', 'g'), \
not_differentiable_yet('the adjoint of a solver', 'y0'), None)
    >>> lookup(helper).tangent is lookup(helper).adjoint
    True
    """
    from .runtime.higher import not_differentiable_yet
    params = list(inspect.signature(func).parameters)
    missing = set(refused) - set(params)
    assert not missing, f"{func.__qualname__} has no parameter {sorted(missing)}"
    taken = {"g", "ans", "not_differentiable_yet"}
    names = [p if p not in taken else f"{p}_{i}" for i, p in enumerate(params)]
    parts = [f"not_differentiable_yet({what!r}, {p!r})" if p in refused else "None"
             for p in params]
    name = f"{func.__name__}_unwritten"
    text = (f"def {name}(g, ans, {', '.join(names)}):\n"
            f"    return ({', '.join(parts)}{',' if len(parts) == 1 else ''})\n")
    filename = f"<s2sad.registry: the derivatives of {func.__qualname__} not written yet>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"__name__": __name__, "not_differentiable_yet": not_differentiable_yet}
    exec(compile(text, filename, "exec"), namespace)
    rule = namespace[name]
    defvjp(func, shape=shape)(rule)
    deftangent(func)(rule)


ARRAY = object()  # what ``known`` gives for an array, in :func:`refusal`
UNKNOWN = object()  # and for a value known only when the line runs


def refusal(rule: Rule, mapping: dict, varies, known) -> tuple[str, str] | None:
    """``(message, advice)`` when a call, its arguments bound to the rule's parameters as
    ``mapping`` (gast nodes), is one ``rule`` does not model: an argument it refuses to
    differentiate that varies (``varies(node)``), or a value it is not written for
    (``known(node)``: the value, ``ARRAY`` or ``UNKNOWN``). None when the rule models it."""
    for parameter, advice in rule.refuses.items():
        node = mapping.get(parameter)
        if node is not None and varies(node):
            return (f"{rule.name} has no derivative with respect to its argument "
                    f"{parameter!r}, which depends on the differentiated arguments", advice)
    for parameter, (accepted, advice) in rule.accepts.items():
        node = mapping.get(parameter)
        value = UNKNOWN if node is None else known(node)
        if value is UNKNOWN:
            fits, shown = True, ""
        elif value is ARRAY:
            fits, shown = False, "an array"
        else:
            fits = any(value == a if not isinstance(a, type) else isinstance(value, a)
                       for a in accepted)
            shown = repr(value)
        if not fits:
            listed = [f"a {a.__name__}" if isinstance(a, type) else repr(a) for a in accepted]
            listed = ", ".join(listed[:-1]) + " or " + listed[-1] if len(listed) > 1 else \
                listed[0]
            return (f"{rule.name} is differentiated with {parameter} {listed}, not {shown}",
                    advice)
    return None


def defdtype(*funcs, position: int | None, name: str = "dtype"):
    """Declare that ``funcs`` take the dtype of their result as the argument ``name``, or
    as the positional argument at ``position`` (None: by keyword only). An integer or
    bool dtype makes a result with no derivative; the compiler reads the argument.

    Example:
        >>> import numpy as np
        >>> lookup(np.sum).dtype, lookup(np.zeros).dtype
        (('dtype', 2), ('dtype', 1))
    """
    for func in funcs:
        rule = _entry(func)
        rule.dtype = (name, position)
    changed()


ALL_ARGUMENTS = (("*", None),)  # Rule.result: it follows all its arguments (defresult "*")


def defresult(*funcs, kind: str | None = None, follows: tuple = ()):
    """Declare the kind of the dtype of ``funcs``' result where no dtype argument sets it:
    ``kind`` ("i" integers, "b" bools, "f" floats), or the dtypes of the arguments
    ``follows`` (``(name, position)`` pairs, or ``"*"``: all its arguments), promoted as
    NumPy does. A value stored into an integer or bool array is truncated: no
    derivative flows.

    Example:
        >>> import numpy as np
        >>> lookup(np.argsort).result, lookup(np.full).result
        ('i', (('fill_value', 1),))
    """
    assert (kind is None) != (not follows), "give kind or follows"
    for func in funcs:
        rule = _entry(func)
        rule.result = kind if kind is not None else ALL_ARGUMENTS if follows == "*" else \
            tuple(follows)
    changed()


ABSENT = object()      # dtype_argument: the call does not pass the dtype
UNREADABLE = object()  # dtype_argument: ``*args`` or ``**kwargs`` may pass it


def dtype_argument(rule: Rule, args: list, keywords: dict):
    """The argument of a call (``args``, ``keywords`` by name; gast nodes) that sets the
    result's dtype by ``rule.dtype``: ``ABSENT`` where the call leaves it out,
    ``UNREADABLE`` where a starred argument may hold it.

    >>> import gast, numpy as np
    >>> node = gast.Constant("int32", None)
    >>> dtype_argument(lookup(np.sum), [gast.Name("x", gast.Load(), None, None)],
    ...                {"dtype": node}) is node
    True
    >>> dtype_argument(lookup(np.sum), [], {}) is ABSENT
    True
    """
    name, position = rule.dtype
    if name in keywords:
        return keywords[name]
    if None in keywords or position is None and ("signature" in keywords or "sig" in keywords):
        return UNREADABLE  # (f(**options); a ufunc's loop, np.add(x, y, signature="ll->l"))
    for i, arg in enumerate(args):
        if isinstance(arg, gast.Starred):
            return UNREADABLE if position is not None and i <= position else ABSENT
        if i == position:
            return arg
    return ABSENT


@dataclass(frozen=True)
class Facts:
    """What a function does to memory, beside its derivative.

    ``returns_view_of``: the argument positions whose memory the result may share (a view
    of one, the argument itself, an item it holds, a container holding its items), or
    ``"*"`` for any argument; ``uncopied_view_of``: the same, when the call passes
    ``copy=False`` or ``copy=None``; ``mutates``: the positions, and the keyword names,
    of the arguments it writes into; ``uncopied_mutates``: those it writes into when
    the call passes ``copy=False`` (``np.nan_to_num(y, copy=False)`` changes ``y``). A
    method's receiver is position 0 (positions are the unbound function's:
    ``np.ndarray.fill(z, 1.0)`` and ``z.fill(1.0)`` mutate 0).
    ``advice``: how to write the change instead (``{n}``: the name changed).

    What the passes read beside memory (each declared beside the function's rule):

    * ``fresh``: the result is always a new array, never an argument or a view;
    * ``shape_of``: the position of the argument whose shape is all it reads;
    * ``structure_of``: the positions of the arguments whose structure (a list's, a
      dict's) the result has (``"item"``: an item of the first);
    * ``pure``: a call whose result nothing reads may be removed;
    * ``checks``: it raises on purpose (``output_seed``), so its calls stay;
    * ``floats``: it returns a Python float for Python numbers (``math.sin``);
    * ``builds``: its first argument is a shape, a number or a sequence by design;
    * ``reads_arrays``: the positions of the arguments it reads as arrays beside the first
      (``np.inner``: ``(0, 1)``): where the target takes no number or list for an array
      (CuPy), a number or list there is converted;
    * ``method``: the NumPy function an array method is, the array first (``"sum"``);
    * ``varargs``: such a method's extra positional arguments are one tuple;
    * ``no_derivative``: an array attribute whose value does not follow the values;
    * ``shape_from``: the position of the argument that is the result's shape;
    * ``fields``: a named result's fields, and each one's rank less the argument's;
    * ``alone``: ``(keyword, value)``: passed that value, the function returns its first
      field alone (``eigh(a, eigvals_only=True)``);
    * ``extremum``: the result is one of the argument's elements (``np.max``);
    * ``number``: the dtype kind of the Python number it returns (``len``: ``"i"``);
    * ``sequence``: it returns a Python container of what its argument holds.
    * ``items``: it computes with its argument's items, not the argument (``sum``): where
      those are numbers, a set or deque of them is read as its items.
    * ``no_attributes``: given an object (or a list of them), it reads none of their
      attributes (``len``, ``isinstance``, ``zip``): a value stored in one is not read back.
    * ``converts``: it gives an ndarray or a Python value whatever array subclass it is
      given (``np.asarray(M)`` of an ``np.matrix``; not with ``subok=True``).
    * ``freezes``: calling it (a SciPy distribution) gives an object whose methods of
      these names are its own, given the call's arguments after theirs
      (``norm(mu, s).logpdf(x)`` is ``norm.logpdf(x, mu, s)``).
    * ``unmodelled``: it has no rule on purpose; what its refusal advises instead.
    * ``complex``: it makes complex values of real ones, or its derivative is a complex
      program's (``np.fft.fft``, ``np.imag``, ``np.complex128``): a program naming it takes
      the ``defcomplex`` rules.
    * ``namespace``: it returns the array module of its arguments (SciPy's
      ``array_namespace``): for the arrays s2sad differentiates, NumPy's, so a variable
      given it (``xp = array_namespace(x)``) is read as NumPy (``xp.sum``: ``np.sum``).
    * ``inline``: a library's function inlined as the user's code is (SciPy's
      ``optimize.rosen``, written against the array API), its calls differentiated or
      refused by the rules.
    * ``library``: the library module that computes it (s2sad's helpers of
      ``scipy.integrate``): on a target with no twin of that module, a call is refused.
    * ``hidden_state``: it changes state no argument holds (NumPy's global random state,
      the ``random`` module's): each call draws anew, so a function calling it is another
      function at each run, and the makers that run it more than once refuse it:
      ``"draws"``; ``"seeds"``: it sets that state from its argument (``np.random.seed``),
      so draws after a call with a constant are the same at each run; ``"unseeded"``: it
      makes a generator from fresh entropy where called with no seed (or None)
      (``np.random.default_rng()``), so draws from it differ at each run.
    * ``calls``: the positions of the arguments it calls on the items of the others
      (``map(f, xs)``: ``(0,)``): a function there with no facts may change an item in
      place, as a call of it would.
    * ``iterator``: it returns an iterator, consumed once, whose definition in
      :mod:`s2sad.implementations` computes every item at the call (``itertools.accumulate``):
      a call is taken where it is consumed at once (``list(...)``, ``sum(...)``, a loop's
      or comprehension's iterable, an unpacking), refused elsewhere.
    * ``copies``: it copies its one argument as its ``copy()`` method does (``copy.copy``,
      and ``copy.deepcopy``, whose copy of a container's items is never relied on: a
      change through one to an item the other reads is refused as shared).
    * ``whole``: it reads an iterable it is given to its end before it does anything
      else (``sum``, ``list``, ``sorted``): a generator expression given to it is read
      as the list of its items; one read by anything else (``any``, a loop) is read item
      by item, so a call there that changes its argument is refused.
    * ``index_array``: as an index, its result makes NumPy copy (advanced indexing):
      ``"always"`` (``np.arange``, ``np.argsort``: arrays of rank one or more, or a tuple
      of them), ``"of a list"`` (``np.array([0, 2])``); so ``x[idx]`` shares no memory.
    * ``allocates``: it returns a new array of its own memory, never an argument or a view
      of one (``np.zeros_like``, ``np.copy``; ``np.array`` unless passed ``copy=False``),
      so a write through a view of it is a write into it (:mod:`s2sad.transforms.view_writes`);
      ``"C"``: in C order where the call gives no order (``np.zeros``, ``np.arange``), so a
      reshape of it is a view;
    * ``order_at``: the position of its ``order`` parameter (``np.zeros``'s 2), where an
      ``order`` given by position decides the order of the array it ``allocates``.
    * ``keywords``: for a runtime helper, the position from which generated code passes
      its arguments by name, those equal to their default left out (``sum_grad``'s 1:
      ``sum_grad(g, like=x, axis=1)``; :mod:`s2sad.transforms.readable`).
    * ``raises``: what makes a call raise, given numbers and arrays of numbers, so that a
      call nothing reads may go where none holds (:mod:`s2sad.transforms.unread_raises`):
      ``"broadcast"`` (array arguments whose shapes do not broadcast: ValueError),
      ``"bool"`` (a bool argument: NumPy refuses ``-`` of bools), ``"integer"``
      (integers to a negative integer power), ``"axis"`` (an ``axis`` outside the
      argument's rank), ``"integers"`` (an argument not an integer: ``range(2.5)``),
      ``"truth"`` (an argument an array: ``max(a, b)`` asks whether ``b > a``),
      ``"contract"`` (the axes it sums over differ in length: ``np.dot``),
      ``"sized"`` (an argument with no length: ``len(2.0)``), ``"number"`` (an
      argument not a number: ``float(x)`` of a vector), ``"items"`` (items that are
      not all numbers: ``sum`` of a list of arrays), ``"signature"`` (arguments that do
      not fit its parameters: freezing a SciPy distribution, ``norm(0.0, 1.0, 2.0)``),
      ``"values"`` (some values or dtypes of numbers: ``np.invert`` of floats; such a
      call stays). ``()``: nothing. None (not declared): an ``"elementwise"``
      rule's calls raise only where they do not broadcast; another's may raise anyhow.
    * ``shaped_like``: the position of the argument whose shape the result has
      (``unbroadcast(g, like)``'s 1): the shape a kept line broadcasts is known.

    >>> import numpy as np
    >>> facts(np.ndarray.fill).mutates, facts(np.reshape).returns_view_of
    ((0,), (0,))
    >>> facts(np.clip).mutates  # its output array, by position or by keyword
    (3, 'out')
    >>> facts(np.sinc) == Facts(), facts(lambda v: v) is None  # known; not known
    (True, True)
    """
    returns_view_of: tuple | str = ()
    uncopied_view_of: tuple = ()
    mutates: tuple = ()
    advice: str = ""
    uncopied_mutates: tuple = ()
    fresh: bool = False
    shape_of: int | None = None
    structure_of: tuple | str = ()
    pure: bool = False
    checks: bool = False
    floats: bool = False
    builds: bool = False
    reads_arrays: tuple = ()
    method: str = ""
    varargs: bool = False
    no_derivative: bool = False
    shape_from: int | None = None
    fields: tuple = ()
    alone: tuple = ()
    extremum: bool = False
    number: str = ""
    sequence: bool = False
    converts: bool = False
    items: bool = False
    no_attributes: bool = False
    freezes: tuple = ()
    unmodelled: str = ""
    complex: bool = False
    namespace: bool = False
    inline: bool = False
    library: str = ""
    keywords: int | None = None
    hidden_state: str = ""
    calls: tuple = ()
    iterator: bool = False
    copies: bool = False
    whole: bool = False
    index_array: str = ""
    allocates: str = ""
    order_at: int | None = None
    raises: tuple | None = None
    shaped_like: int | None = None

    def union(self, other: "Facts | None") -> "Facts | None":
        """Facts that hold for either function (None: one is not known)."""
        if other is None:
            return None
        view = "*" if "*" in (self.returns_view_of, other.returns_view_of) else \
            tuple(sorted(set(self.returns_view_of) | set(other.returns_view_of)))
        return Facts(view, tuple(sorted(set(self.uncopied_view_of) |
                                        set(other.uncopied_view_of))),
                     tuple(dict.fromkeys(self.mutates + other.mutates)),
                     self.advice or other.advice)


_FACTS: dict = {}
_DERIVED: dict = {}


def deffacts(*funcs, **given):
    """Register facts about ``funcs`` (:class:`Facts`, by field name), beside their rules,
    keyed by the function object (a method by its unbound function: ``list.sort``). The
    fields given are added to those declared before, in any order.

    >>> import heapq
    >>> facts(heapq.heappush).mutates
    (0,)
    """
    if _OPTIONAL:
        load_imported()
    for name in ("uncopied_view_of", "mutates", "uncopied_mutates", "raises"):
        if name in given and given[name] is not None:
            given[name] = (given[name],) if isinstance(given[name], str) else \
                tuple(given[name])
    for func in funcs:
        _FACTS[_key(func)] = dataclasses.replace(_FACTS.get(_key(func), Facts()), **given)
    _DERIVED.clear()


def facts(func) -> Facts | None:
    """What ``func`` does to memory: its registered facts; for a function with a rule and
    none registered, none at all (it returns a new value and changes nothing); else None,
    not known. A NumPy function's ``out`` parameter, given by position, is one it
    mutates. A bound method (``rng.shuffle``) has its class's function's facts, the
    receiver left out of the positions."""
    if _OPTIONAL:
        load_imported()
    try:
        return _DERIVED[_key(func)]
    except (KeyError, TypeError):
        pass
    owner = getattr(func, "__self__", None)
    unbound = None
    if owner is not None and not isinstance(owner, (type(inspect), type)) and \
            not isinstance(func, type) and getattr(func, "__name__", None):
        # (a method bound to a class, object.__new__, is not its metaclass's: that one is
        # bound to the metaclass in turn, without end)
        unbound = getattr(type(owner), func.__name__, None)
    if unbound is not None and lookup(func) is None and _key(func) not in _FACTS:
        found = facts(unbound)
        if found is not None:
            found = dataclasses.replace(
                found, returns_view_of=_shifted(found.returns_view_of),
                uncopied_view_of=_shifted(found.uncopied_view_of),
                mutates=_shifted(found.mutates),
                uncopied_mutates=_shifted(found.uncopied_mutates))
    else:
        found = _FACTS.get(_key(func))
        if found is None and _key(func) not in _RULES and _source_twin(func) is not None:
            return facts(_source_twin(func))  # (cupy.add.at: numpy.add.at's)
        if found is None and lookup(func) is not None:
            found = Facts()
        if found is not None and not found.mutates:
            out = _out_position(func)
            if out is not None:
                found = dataclasses.replace(found, mutates=(out, "out"))
    try:
        _DERIVED[_key(func)] = found
    except TypeError:
        pass
    return found


_PURE_BUILTINS = object()  # (its key in _DERIVED, cleared with it when the table changes)


def pure_builtins() -> dict:
    """``{name: function}`` of Python's builtins whose facts say ``pure`` (``len``,
    ``float``...), as the table says now (kept until it changes).

    >>> pure_builtins()["len"] is len
    True
    """
    found = _DERIVED.get(_PURE_BUILTINS)
    if found is None:
        import builtins
        found = _DERIVED[_PURE_BUILTINS] = {name: f for name, f in vars(builtins).items()
                                            if (facts(f) or Facts()).pure}
    return found


def _shifted(positions):
    if positions == "*":
        return positions
    return tuple(p - 1 if isinstance(p, int) else p for p in positions
                 if not isinstance(p, int) or p > 0)


def _out_position(func) -> int | None:
    """The position of ``func``'s ``out`` parameter (a ufunc's: after its inputs), or None."""
    nin = getattr(func, "nin", None)
    if type(func).__name__ == "ufunc" and isinstance(nin, int):
        return nin
    if not (getattr(func, "__module__", None) or "").startswith("numpy"):
        return None
    try:
        parameters = list(signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    for i, p in enumerate(parameters):
        if p.kind in (p.VAR_POSITIONAL, p.KEYWORD_ONLY, p.VAR_KEYWORD):
            return None
        if p.name == "out":
            return i
    return None


def result_arguments(rule: Rule, args: list, keywords: dict) -> list:
    """The arguments of a call (gast nodes) whose dtypes its result follows
    (``rule.result``), those it passes; None where a starred argument may pass one.

    >>> import gast, numpy as np
    >>> one = gast.Constant(1, None)
    >>> result_arguments(lookup(np.arange), [one], {"step": one}) == [one, one]
    True
    """
    if rule.result == ALL_ARGUMENTS:
        if any(isinstance(a, gast.Starred) for a in args) or None in keywords:
            return None
        return list(args) + list(keywords.values())
    found = []
    for name, position in rule.result:
        if name in keywords:
            found.append(keywords[name])
            continue
        for i, arg in enumerate(args):
            if isinstance(arg, gast.Starred):
                return None
            if i == position:
                found.append(arg)
    return None if None in keywords else found


def defcomplex(*funcs, tangent: bool = False, shape: str = "elementwise"):
    """Register the decorated function as the adjoint rule (``tangent=True``: the tangent
    rule) of ``funcs`` in programs that hold complex numbers, where the real rule is wrong
    (``abs``: ``g * np.sign(x)``) or missing. Real programs keep the real rule.

    Example:
        >>> import numpy as np
        >>> rule = lookup(np.abs).complex
        >>> complex(rule.adjoint(1.0, np.sqrt(2.0), 1.0 + 1.0j)) == (1 - 1j) / np.sqrt(2.0)
        True
    """
    def register(function):
        for func in funcs:
            variant = _entry(func).complex
            if variant is None:
                variant = _entry(func).complex = Rule(func, None, shape)
            if tangent:
                variant.tangent, variant._parsed_tangent = function, None
            else:  # (the adjoint's shape, whichever rule came first)
                variant.adjoint, variant._parsed, variant.shape = function, None, shape
        changed()
        return function
    return register


def for_values(rule: Rule, complex_values: bool) -> Rule:
    """``rule``, or its variant for a program that holds complex numbers (``defcomplex``):
    that variant's adjoint and tangent where it gives them, the rest of ``rule`` as it is."""
    variant = rule.complex if complex_values else None
    if variant is None:
        return rule
    if id(rule) in _MERGED:
        return _MERGED[id(rule)]
    merged = dataclasses.replace(rule, complex=None, _parsed=None, _parsed_tangent=None)
    if variant.adjoint is not None:  # (a function with no real derivative may have one)
        merged.adjoint, merged.shape, merged.differentiable = variant.adjoint, variant.shape, True
    if variant.tangent is not None:
        merged.tangent = variant.tangent
    return _MERGED.setdefault(id(rule), merged)


_MERGED: dict = {}  # id(rule) -> its variant for complex values (for_values), until changed


def lookup(func) -> Rule | None:
    """The rule of ``func``; a CuPy twin's is NumPy's or SciPy's (``cupy.exp``,
    ``cupyx.scipy.special.erf``: a CuPy gradient's code differentiated again)."""
    if _OPTIONAL:
        load_imported()
    try:
        found = _RULES.get(_key(func))
    except TypeError:
        return None
    if found is None:
        twin = _source_twin(func)
        if twin is not None:
            if _OPTIONAL:
                load_imported()  # (the twin's library, imported to find it)
            return _RULES.get(_key(twin))
    return found


def _source_twin(func):
    """NumPy's or SciPy's function of which ``func`` is a target's twin (``cupy.exp``), or
    None: its rules and facts are that function's."""
    from .backends import BACKENDS  # (each reads only its modules already imported)
    for backend in BACKENDS:
        twin = backend.source_twin(func)
        if twin is not None:
            return twin
    return None


def registered(helpers: bool = False, user: bool = False,
               installed: bool = True) -> list[Rule]:
    """The rules of s2sad's table. ``helpers``: also those of s2sad's own runtime helpers
    (``unbroadcast``, ``sum_grad``...), which generated code calls and which only a
    derivative of a derivative differentiates; ``user``: also the rules registered by
    the program (``custom_vjp``, ``defvjp``, ``checkpoint``...); ``installed``: also those of
    the optional libraries installed but not imported yet (imported now, see ``optional``)."""
    load_imported(install=installed)
    return [rule for rule in _RULES.values() if (helpers or not is_helper(rule.func)) and
            (user or rule.builtin)]


def is_helper(func) -> bool:
    """Is ``func`` one of s2sad's runtime helpers (called by generated code)?"""
    return (getattr(func, "__module__", None) or "").startswith("s2sad.runtime")


_SIGNATURES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def signature(function) -> inspect.Signature:
    """``inspect.signature`` of a rule's function, computed once (a rule is inlined at every
    use, and computing a signature costs more than inlining a small rule); the cache keeps
    no function alive."""
    try:
        return _SIGNATURES[function]
    except (KeyError, TypeError):
        found = inspect.signature(function)
        try:
            _SIGNATURES[function] = found
        except TypeError:  # (not weakly referable)
            pass
        return found


_PLAIN: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_EMPTY = inspect.Parameter.empty


def bind(function, args: tuple, keywords: dict) -> dict:
    """``signature(function).bind(*args, **keywords)`` with the defaults applied, as a
    dict ``{parameter: value}`` in the signature's order; TypeError as ``bind`` raises it.
    A rule's parameters are plain (no ``*args``, no keyword-only ones) nearly always:
    those are bound here directly, at a tenth of ``bind``'s cost.

    >>> def rule(g, ans, x, axis=None, keepdims=False):
    ...     return g
    >>> bind(rule, ("g", "ans", "x"), {"keepdims": True})
    {'g': 'g', 'ans': 'ans', 'x': 'x', 'axis': None, 'keepdims': True}
    >>> bind(rule, ("g", "ans"), {})
    Traceback (most recent call last):
        ...
    TypeError: missing a required argument: 'x'
    >>> bind(rule, ("g", "ans", "x"), {"x": "again"})
    Traceback (most recent call last):
        ...
    TypeError: multiple values for argument 'x'
    """
    try:
        plain = _PLAIN[function]
    except (KeyError, TypeError):
        parameters = signature(function).parameters.values()
        plain = tuple((p.name, p.default) for p in parameters) \
            if all(p.kind is p.POSITIONAL_OR_KEYWORD for p in parameters) else None
        try:
            _PLAIN[function] = plain
        except TypeError:
            pass
    if plain is not None and len(args) <= len(plain):
        bound = dict(zip((name for name, _ in plain), args))
        left = len(keywords)
        for name, default in plain[len(args):]:
            if name in keywords:
                bound[name] = keywords[name]
                left -= 1
            elif default is _EMPTY:
                break
            else:
                bound[name] = default
        else:
            if not left:  # (every keyword is one of the parameters after the positional ones)
                return bound
    found = signature(function).bind(*args, **keywords)
    found.apply_defaults()
    return dict(found.arguments)


def describe_function(func) -> str:
    owner = getattr(func, "__self__", None)
    if type(owner).__name__ == "ufunc":  # np.add.reduce
        return f"{type(owner).__module__.split('.')[0]}.{owner.__name__}.{func.__name__}"
    distribution = _distribution_name(owner)
    if distribution is not None:  # scipy.stats.norm.logpdf (a method of SciPy's object)
        return f"{distribution}.{func.__name__}"
    distribution = _distribution_name(func)
    if distribution is not None:  # scipy.stats.norm, called: frozen
        return distribution
    module = getattr(func, "__module__", None) or \
        getattr(getattr(func, "__objclass__", None), "__module__", None) or ""  # ndarray.astype
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None)
    if name is None:  # an object whose class defines __call__
        module = type(func).__module__ or ""
        name = f"{type(func).__qualname__} object"
    if module.startswith("numpy._core") or module.startswith("numpy.core"):
        module = "numpy"
    if not module and type(func).__name__ == "ufunc" and \
            getattr(sys.modules.get("scipy.special"), name, None) is func:
        module = "scipy.special"  # (SciPy's ufuncs have no __module__)
    if module.startswith("scipy.special."):
        module = "scipy.special"  # (its public name: scipy.special.logsumexp)
    if module.startswith("scipy.") and module.count(".") > 1 and getattr(
            sys.modules.get(".".join(module.split(".")[:2])), name, None) is func:
        module = ".".join(module.split(".")[:2])  # (scipy.integrate.odeint, not ._odepack_py)
    if module.startswith("scipy.linalg."):
        module = "scipy.linalg"  # (scipy.linalg.cholesky, written in scipy.linalg._decomp_...)
    if module in ("builtins", "_operator", ""):
        return name
    return f"{public_module(module)}.{name}"


def _distribution_name(value) -> str | None:
    """``"scipy.stats.norm"`` for SciPy's distribution object of that name, else None."""
    module = type(value).__module__  # (a descriptor, not a string, for some Cython types)
    if not isinstance(module, str) or not module.startswith("scipy.stats."):
        return None
    name = getattr(value, "name", None)
    if not isinstance(name, str):  # (multivariate ones: dirichlet_gen, no name)
        name = type(value).__name__.removesuffix("_gen")
    if getattr(sys.modules.get("scipy.stats"), name, None) is value:
        return f"scipy.stats.{name}"
    return None
