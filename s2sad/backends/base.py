"""What a target is: one :class:`Backend` object per array library generated code runs on.

The compiler always reads the user's code, and writes its rules, against NumPy. A
backend says what changes for its target: which module the generated code imports in
NumPy's place, which array arguments it takes, which helpers stand in for functions its
module lacks, and whether lists and numbers must be made arrays first. Passes ask the
backend; none compares a target's name.

>>> from s2sad.backends import CUPY, NUMPY
>>> NUMPY.imported_name("numpy.linalg"), CUPY.imported_name("numpy.linalg")
('numpy.linalg', 'cupy.linalg')
>>> CUPY.stand_in("numpy.linalg", "vector_norm"), NUMPY.stand_in("numpy.linalg", "vector_norm")
(('s2sad.runtime.cupy_compat', 'vector_norm'), None)
>>> NUMPY.claims(("nd", 2, "f")), NUMPY.claims(("nd", 0, "f")), CUPY.claims(("cupy", 0, "f"))
(True, False, True)
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

# The library the user's code and the derivative rules are written against, whatever
# the target: its module names are what the compiler resolves, then translates.
SOURCE_MODULE = "numpy"

# (a target module's id: the module, and the name of each of its functions by their id)
_NAMES: dict = {}
# NumPy's modules whose functions have rules, as a target module's name ends
_SUBMODULES = ("", ".linalg", ".fft", ".random")


def numpy_module(name: str) -> bool:
    """Is ``name`` NumPy's module or one of its submodules?

    >>> numpy_module("numpy"), numpy_module("numpy.linalg"), numpy_module("numpyro")
    (True, True, False)
    """
    return name == SOURCE_MODULE or name.startswith(SOURCE_MODULE + ".")


class Backend:
    """One target: the array module generated code imports, and what differs on it.

    A subclass per target sets the class attributes and overrides what its arrays need.
    Instances are registered in :mod:`s2sad.backends` (``BACKENDS``); ``target="name"``
    picks one by ``name``.

    Attributes:
        name: the target's name in ``target=...`` (``"cupy"``).
        title: its name in messages (``"CuPy"``).
        module: the module generated code imports in NumPy's place (``"cupy"``).
        short: that module's usual alias (``"cp"``).
        tag: the first item of its arrays' descriptors (``("cupy", 2, "f")``).
        libraries: top-level modules of the library, whose objects are not the user's.
        takes_lists: do its functions take lists and numbers where they want arrays?
            (CuPy's do not: the generated code converts them with ``cp.asarray``.)
        stand_ins: NumPy functions its module lacks, ``(module, name)`` -> the name of
            s2sad's stand-in in ``helpers``.
        keyword_stand_ins: NumPy functions whose twin lacks some keywords, ``(module,
            name)`` -> ``(keywords, stand-in)``: a call passing one calls the stand-in.
        display_stand_ins: NumPy functions whose twin takes no list of numbers and
            arrays mixed, ``(module, name)`` -> stand-in: a call given a list or tuple
            display, or a name (which may hold a list), calls the stand-in.
        repeats_undefined: does ``y[idx] = v`` with a repeated position store an
            undefined one of the values (NumPy: the last)? Differentiating it is refused.
        helpers: the module of those stand-ins (``"s2sad.runtime.cupy_compat"``).
        lacks: NumPy functions ``(module, name)`` its module lacks, with no stand-in:
            generated code that would call one is refused at the user's line.
        twins: other libraries' modules it has its own of, with the names that module
            has (``"scipy.special"`` -> ``("cupyx.scipy.special", names)``): generated
            code imports the twin, and a call of a function it lacks is refused.
        without: other libraries' modules it has no twin of (``"scipy.integrate"``): a call
            of any of their functions, or of s2sad's helpers computed with them (the
            ``library`` fact of their rule entries), is refused.
        instead: for a function it lacks ``(module, name)``, the call to write instead, which
            it has (``np.linalg.inv(a)`` for ``scipy.linalg.inv``): the refusal's advice.
        foreign: the descriptor tags of arrays it refuses as arguments (rank 0 aside).
        mix_hint: what to do when its arrays and another target's are given together.
        install_hint: how to install its module, where it cannot be imported.
        joins: the descriptor tags of other targets' arrays it takes along its own under
            ``target="auto"`` (Dask takes NumPy arrays: ``("nd",)``).
        settles: are its arrays lazy, computed after the generated code returns (Dask's:
            the gradient of an argument of another kind is computed, all in one call)?
        compiler: the module that compiles its generated code (``"numba"``), or ``""``.
        compiles: with a ``compiler``, the functions ``(module, name)`` it compiles.
    """

    name: str = ""
    title: str = ""
    module: str = SOURCE_MODULE
    short: str = "np"
    tag: str = ""
    libraries: frozenset[str] = frozenset()
    takes_lists: bool = True
    stand_ins: Mapping[tuple[str, str], str] = {}
    keyword_stand_ins: Mapping[tuple[str, str], tuple[frozenset, str]] = {}
    display_stand_ins: Mapping[tuple[str, str], str] = {}
    # Python's own operations the target's arrays do not take as NumPy's do, each with
    # the name of its stand-in in ``helpers``: ``"index"`` (a subscript whose index is
    # not a number or a slice: ``x[i, j]``), ``"round"`` (the builtin), ``"tolist"``
    # (the method)
    python_stand_ins: Mapping[str, str] = {}
    repeats_undefined: bool = False
    helpers: str | None = None
    lacks: frozenset[tuple[str, str]] = frozenset()
    twins: Mapping[str, tuple[str, frozenset[str]]] = {}
    without: frozenset[str] = frozenset()
    instead: Mapping[tuple[str, str], str] = {}
    foreign: tuple[str, ...] = ()
    mix_hint: str = ""
    install_hint: str = ""
    settles: bool = False
    joins: tuple[str, ...] = ()
    compiler: str = ""
    compiles: frozenset[tuple[str, str]] = frozenset()

    @property
    def translates(self) -> bool:
        """Does generated code import another module in NumPy's place?"""
        return self.module != SOURCE_MODULE

    def describe(self, value) -> tuple | None:
        """The descriptor of ``value`` if it is one of this target's arrays, else None
        (``s2sad.descriptors.describe`` asks the backend of its module)."""
        return None

    def array_type(self, kind) -> bool:
        """Is ``kind`` (a class of this target's library) the class of its arrays?"""
        return kind.__name__ == "ndarray"

    def unknown_chunks(self, name: str, value) -> tuple[str, str] | None:
        """``(message, hint)`` where the argument ``value`` is one of its arrays whose shape
        is not known (a Dask array of unknown chunk sizes), else None."""
        return None

    def is_lazy(self, value) -> bool:
        """Is ``value`` one of this target's arrays whose computing is left for later?"""
        return False

    def none_given(self, values) -> tuple[str, str] | None:
        """``(message, hint)`` where this target, asked for by name, was given none of its
        arrays among the arguments ``values`` and cannot compute without one, else None."""
        return None

    def claims(self, desc) -> bool:
        """Does an argument so described choose this target under ``target="auto"``?"""
        return isinstance(desc, tuple) and bool(desc) and desc[0] == self.tag

    def refuses(self, desc) -> bool:
        """Is an argument so described one this target cannot take (an array of another
        device; 0-d arrays and numbers go with any target)?"""
        return isinstance(desc, tuple) and bool(desc) and desc[0] in self.foreign and \
            desc[1] > 0

    def refusal(self, name: str, single: bool) -> tuple[str, str]:
        """``(message, hint)`` for the argument ``name`` it refuses (``single``: the
        argument itself is the array, not a container holding it)."""
        raise NotImplementedError(f"{type(self).__name__} refuses no argument")

    def imported_name(self, name: str) -> str:
        """The module generated code imports for module ``name``: itself, or on a target
        that translates, its twin for a NumPy module (``cupy.linalg`` for ``numpy.linalg``).
        """
        if self.translates and numpy_module(name):
            return self.module + name[len(SOURCE_MODULE):]
        if name in self.twins:
            return self.twins[name][0]
        return name

    def source_twin(self, func):
        """NumPy's or SciPy's function of which ``func`` is this target's twin (``cupy.exp``:
        ``numpy.exp``, ``cupyx.scipy.special.erf``: ``scipy.special.erf``), or None. The
        rules are NumPy's: a gradient's own code, differentiated again, finds them so. Only
        the target's modules already imported are read (compiling never imports CuPy).
        """
        if not self.translates or getattr(func, "__module__", None) == "builtins":
            return None  # (Python's own str, float...: no target's twin, whatever re-exports it)
        owner = getattr(func, "__self__", None)  # (cupy.add.at: numpy.add.at)
        if owner is not None and not isinstance(owner, type(sys)):
            twin = self.source_twin(owner)
            return None if twin is None else getattr(twin, getattr(func, "__name__", ""), None)
        if getattr(func, "__module__", None) == self.helpers:  # (a stand-in: NumPy's own)
            for (module, name), stand_in in self.all_stand_ins():
                if stand_in == getattr(func, "__name__", None) and module in sys.modules:
                    return getattr(sys.modules[module], name, None)
        pairs = [(self.module + part, SOURCE_MODULE + part) for part in _SUBMODULES] + \
            [(twin, library) for library, (twin, _) in self.twins.items()]
        for target_name, source_name in pairs:
            module = sys.modules.get(target_name)
            source = sys.modules.get(source_name)
            if module is None or source is None:
                continue
            names = _NAMES.get(id(module))
            if names is None or names[0] is not module:
                names = _NAMES[id(module)] = (module, {
                    id(value): name for name in dir(module) if not name.startswith("_")
                    for value in [getattr(module, name, None)] if callable(value)})
            name = names[1].get(id(func))
            if name is not None and getattr(module, name, None) is func and \
                    getattr(source, name, None) is not func:  # (NumPy's own, re-exported)
                return getattr(source, name, None)
        return None

    def lacks_function(self, module: str, name: str) -> bool:
        """Does this target have no function for ``module.name`` (NumPy's, or a twinned
        library's), and s2sad no stand-in? Generated code calling it is refused.

        >>> from s2sad.backends import CUPY, NUMPY
        >>> CUPY.lacks_function("scipy.special", "jv"), CUPY.lacks_function("scipy.special", "erf")
        (True, False)
        >>> NUMPY.lacks_function("scipy.special", "jv")
        False

        A name under a twinned module (``scipy.stats.norm``'s ``logpdf``) is looked for
        dotted (``"norm.logpdf"``); every function of a module it is ``without`` is lacking:

        >>> CUPY.lacks_function("scipy.stats.norm", "logpdf"), CUPY.lacks_function(
        ...     "scipy.integrate", "odeint"), CUPY.lacks_function("scipy.fft", "rfft")
        (True, True, False)
        """
        if (module, name) in self.lacks or self.lacks_module(module):
            return True
        for twin, (_, names) in self.twins.items():
            if module == twin or module.startswith(twin + "."):
                return f"{module[len(twin) + 1:]}.{name}".lstrip(".") not in names
        return False

    def lacks_module(self, module: str) -> bool:
        """Is ``module`` (or the module it is in) one of a library's that this target has no
        twin of (``"scipy.integrate"`` on CuPy)?"""
        return any(module == name or module.startswith(name + ".") for name in self.without)

    def all_stand_ins(self):
        """``((module, name), stand-in)`` for every stand-in, whatever calls it."""
        yield from self.stand_ins.items()
        for key, (_, stand_in) in self.keyword_stand_ins.items():
            yield key, stand_in
        yield from self.display_stand_ins.items()

    def call_stand_in(self, module: str, name: str, keywords, display: bool):
        """``(module, name)`` of s2sad's stand-in for a call of NumPy's ``module.name``
        passing ``keywords`` (their names), its first argument a list or tuple display
        (or a name) or not, where this target's function would not take that call; else
        None.

        >>> from s2sad.backends import CUPY
        >>> CUPY.call_stand_in("numpy", "clip", {"min"}, False)
        ('s2sad.runtime.cupy_compat', 'clip')
        >>> CUPY.call_stand_in("numpy", "clip", set(), False) is None
        True
        """
        found = self.keyword_stand_ins.get((module, name))
        if found is not None and found[0] & set(keywords):
            return self.helpers, found[1]
        found = self.display_stand_ins.get((module, name)) if display else None
        return None if found is None else (self.helpers, found)

    def stand_in(self, module: str, name: str) -> tuple[str, str] | None:
        """``(module, name)`` of s2sad's stand-in for NumPy's ``module.name`` where this
        target's module has no such function, else None."""
        found = self.stand_ins.get((module, name))
        return None if found is None else (self.helpers, found)

    def compiles_call(self, module: str, name: str) -> bool:
        """Does this target's ``compiler`` compile a call of ``module.name`` (``math.sin``)?
        (A target without a compiler runs every call Python runs.)"""
        return not self.compiler or (module, name) in self.compiles

    def import_error(self) -> ImportError | None:
        """Why this target's module cannot be imported here, or None."""
        return None

    def __repr__(self) -> str:
        return f"<s2sad backend {self.name!r}>"
