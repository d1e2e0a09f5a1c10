"""A CPU stand-in for CuPy, as strict as CuPy where it matters: for testing the CuPy
target of s2sad on machines without a GPU.

``make()`` builds a module named ``cupy`` whose arrays (``ndarray``) wrap NumPy
arrays and behave like CuPy's in the ways that break code written for NumPy:

* there are no scalars: reductions, indexing and ufuncs give 0-d arrays;
* an implicit conversion to NumPy (``np.asarray(x)``, ``__array__``) raises, as
  CuPy does; so does mixing a NumPy array into a CuPy operation;
* ``np.sum(x)`` and the other NumPy functions raise too (CuPy would dispatch them
  through ``__array_function__``, slowly: generated code must call ``cp.sum``),
  except the metadata ones (``np.shape``, ``np.ndim``, ``np.result_type``...);
  NumPy ufuncs raise unless a NumPy scalar is an operand (``np.float64(2) * x``);
* functions other than ufuncs and array constructors take no Python scalar or
  list where CuPy wants an array (``cp.sum(1.0)``, ``cp.sum([a, b])``);
* only names CuPy 14 has exist (``cupy_names.txt``, from ``dir(cupy)``): using
  ``np.vecdot`` on the CuPy target fails here as it would on a GPU;
* only the parameters CuPy's functions have are taken (``cupy_signatures.txt``):
  ``cp.clip(x, min=0.0)`` fails, as CuPy's ``clip(a, a_min, a_max)`` has no ``min``;
* ``stack``, ``concatenate``, ``choose``, ``inner``, ``tensordot`` take arrays only, and
  ``cp.array([x, 1.0])`` of a device array and a number fails (CuPy converts such a
  list through NumPy, which ``x`` refuses);
* where CuPy leaves a result undefined, the emulation picks another answer than NumPy,
  so that code relying on NumPy's shows: ``y[idx] = v`` with a repeated position keeps
  the *first* value written (NumPy: the last).

It does not emulate devices, streams, kernels, dtype differences or speed.

Regenerate the name list from a real CuPy with ``python fake_cupy.py --names``, the
signatures with ``python fake_cupy.py --signatures``.
"""

from __future__ import annotations

import inspect
import operator
import os
import sys
import types

import numpy as _np

_NAMES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cupy_names.txt")
_SIGNATURES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "cupy_signatures.txt")

# functions that take Python scalars, lists or shapes where others want an array
_CONSTRUCTORS = {
    "array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "zeros", "ones",
    "empty", "full", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri",
    "indices", "shape", "ndim", "iscomplexobj", "isrealobj", "isscalar", "result_type",
    "can_cast", "promote_types", "dtype", "finfo", "iinfo", "issubdtype", "min_scalar_type",
    "einsum", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "fromfunction",
    "diag_indices", "tril_indices", "triu_indices", "meshgrid", "ix_", "concatenate", "stack",
    "hstack", "vstack", "dstack", "column_stack", "row_stack", "block",
}
# NumPy functions CuPy arrays may meet without harm (no data is touched)
_METADATA = {"shape", "ndim", "size", "result_type", "iscomplexobj", "isrealobj", "isscalar",
             "can_cast", "min_scalar_type"}

_NO_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
                "construct a NumPy array explicitly.")


def _names():
    top, sub = set(), {}
    with open(_NAMES_FILE) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            line = line.split()[-1]
            if "." in line:
                module, name = line.split(".", 1)
                sub.setdefault(module, set()).add(name)
            else:
                top.add(line)
    return top, sub


_TOP, _SUB = _names()


def _signatures() -> dict:
    """CuPy's signatures by qualified name (``clip``, ``linalg.cholesky``), as
    ``inspect.Signature`` objects (defaults stand for "has one": never used)."""
    P = inspect.Parameter
    found = {}
    with open(_SIGNATURES_FILE) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, text = line.split(":", 1)
            params, kind, positional_only = [], P.POSITIONAL_OR_KEYWORD, []
            for word in text.split():
                if word == "/":
                    params = [p.replace(kind=P.POSITIONAL_ONLY) for p in params]
                elif word == "*":
                    kind = P.KEYWORD_ONLY
                elif word.startswith("**"):
                    params.append(P(word[2:], P.VAR_KEYWORD))
                elif word.startswith("*"):
                    params.append(P(word[1:], P.VAR_POSITIONAL))
                    kind = P.KEYWORD_ONLY
                else:
                    default = None if word.endswith("=") else P.empty
                    params.append(P(word.rstrip("="), kind, default=default))
            found[name] = inspect.Signature(params)
    return found


_SIGNATURES = _signatures()


def _check_signature(qualified, args, kwargs):
    """Raise CuPy's TypeError where ``qualified``'s CuPy signature takes no such call."""
    signature = _SIGNATURES.get(qualified)
    if signature is not None:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{qualified.rsplit('.', 1)[-1]}() {exc}") from None


class ndarray:
    """A CuPy array, emulated: a NumPy array that refuses to be taken for one."""

    __slots__ = ("_a",)
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, a):
        self._a = a

    # metadata
    shape = property(lambda self: self._a.shape)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    dtype = property(lambda self: self._a.dtype)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)

    def get(self):
        """The data, copied to the host as a NumPy array (as ``cupy.ndarray.get``)."""
        return self._a.copy()

    def __getattr__(self, name):
        if name not in _SUB["ndarray"]:
            raise AttributeError(f"'cupy.ndarray' object has no attribute {name!r}")
        value = getattr(self._a, name)
        if callable(value):
            def method(*args, **kwargs):
                return _wrap(value(*_unwrap(args, name), **_unwrap(kwargs, name)))
            return method
        return _wrap(value)

    # NumPy interoperability: as strict as CuPy, or stricter
    def __array__(self, *args, **kwargs):
        raise TypeError(_NO_IMPLICIT)

    def __array_function__(self, func, types, args, kwargs):
        if func.__name__ in _METADATA:
            return func(*_unwrap(args, func.__name__), **_unwrap(kwargs, func.__name__))
        raise TypeError(f"numpy.{func.__name__} was called on a CuPy array: call "
                        f"cupy.{func.__name__} (CuPy would dispatch it slowly, or fail)")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if not any(isinstance(v, _np.generic) for v in inputs):
            raise TypeError(f"numpy.{ufunc.__name__} was called on a CuPy array: call "
                            f"cupy.{ufunc.__name__}")
        return _wrap(getattr(ufunc, method)(*_operands(inputs), **_unwrap(kwargs, "ufunc")))

    # Python protocols
    def __len__(self):
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (_wrap(self._a[i]) for i in range(len(self._a)))

    def __getitem__(self, index):
        return _wrap(self._a[_index(index)])

    def __setitem__(self, index, value):
        if isinstance(value, (list, tuple)):
            value = _np.asarray(_host(value))
        index, value = _index(index), _operand(value)
        if _integer_arrays(index):  # (a repeated position: CuPy keeps any one of the values)
            where = _np.arange(self._a.size).reshape(self._a.shape)[index]
            if _np.unique(where).size != where.size:
                values = _np.broadcast_to(value, where.shape).ravel()[::-1]
                self._a[_np.unravel_index(where.ravel()[::-1], self._a.shape)] = values
                return
        self._a[index] = value

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __complex__(self):
        return complex(self._a)

    def __bool__(self):
        return bool(self._a)

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec)

    def __copy__(self):
        return ndarray(self._a.copy())

    def __deepcopy__(self, memo):
        return ndarray(self._a.copy())

    def __reduce__(self):
        return (asarray, (self._a,))


ndarray.__module__ = "cupy"


def _binary(op, reflected=False):
    def method(self, other):
        other = _operand(other)
        return _wrap(op(other, self._a) if reflected else op(self._a, other))
    return method


def _inplace(op):
    def method(self, other):
        op(self._a, _operand(other))
        return self
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
              "xor", "lshift", "rshift"):
    _op = getattr(operator, _name + "_" if _name in ("and", "or") else _name)
    setattr(ndarray, f"__{_name}__", _binary(_op))
    setattr(ndarray, f"__r{_name}__", _binary(_op, reflected=True))
    setattr(ndarray, f"__i{_name}__", _inplace(getattr(operator, f"i{_name}")))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(ndarray, f"__{_name}__", _binary(getattr(operator, _name)))
for _name in ("neg", "pos", "abs", "invert"):
    setattr(ndarray, f"__{_name}__", (lambda op: lambda self: _wrap(op(self._a)))(
        getattr(operator, _name)))


# --- wrapping -----------------------------------------------------------------------------


def _wrap(value):
    """NumPy results as CuPy would give them: arrays, and 0-d arrays for scalars."""
    if isinstance(value, _np.ndarray):
        return ndarray(value)
    if isinstance(value, _np.generic):
        return ndarray(_np.asarray(value))
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    if hasattr(value, "_fields"):  # namedtuples of results (slogdet, svd...)
        return type(value)(*(_wrap(v) for v in value))
    return value


def _host_array_error(where):
    return TypeError(f"Unsupported type <class 'numpy.ndarray'> (cupy.{where}): a NumPy array "
                     "was given to CuPy; move it with cupy.asarray first")


def _unwrap(value, where):
    if type(value) is ndarray:
        return value._a
    if isinstance(value, _np.ndarray):
        raise _host_array_error(where)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_unwrap(v, where) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v, where) for k, v in value.items()}
    return value


def _operand(value):
    """An operand of an arithmetic operator or ufunc: arrays of this module and scalars."""
    if type(value) is ndarray:
        return value._a
    if isinstance(value, _np.ndarray):
        raise _host_array_error("ufunc")
    if isinstance(value, (list, tuple)):
        raise TypeError(f"Unsupported type {type(value)}")
    return value


def _operands(values):
    return [_operand(v) for v in values]


def _index(index):
    if isinstance(index, tuple):
        return tuple(_index(i) for i in index)
    if type(index) is ndarray:
        return index._a
    return index


def _integer_arrays(index) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, (list, _np.ndarray)) and _np.asarray(p).dtype.kind in "iu"
               for p in parts)


# functions whose listed positional arguments CuPy reads as arrays (``a.ndim``, ``a.shape``)
_ARRAYS_ONLY = {"inner": (0, 1), "tensordot": (0, 1), "choose": (1,)}
# functions whose first argument is a sequence of arrays, and no number
_SEQUENCE_OF_ARRAYS = {"stack", "concatenate"}


def _check_arrays(name, args, kwargs):
    """CuPy's refusals of what NumPy converts: numbers or lists where an array is read."""
    for i in _ARRAYS_ONLY.get(name, ()):
        if i < len(args) and type(args[i]) is not ndarray:
            raise AttributeError(f"'{type(args[i]).__name__}' object has no attribute 'ndim'"
                                 if name != "choose" else
                                 f"'{type(args[i]).__name__}' object has no attribute 'shape'")
    if name == "tensordot" and any(getattr(a, "ndim", 1) == 0 for a in args[:2]):
        axes = args[2] if len(args) > 2 else kwargs.get("axes", 2)
        if axes != 0 and axes != ((), ()):
            raise ValueError("An input is zero-dim while axes has dimensions")
    if name in _SEQUENCE_OF_ARRAYS and args and isinstance(args[0], (list, tuple)):
        for item in args[0]:
            if type(item) is not ndarray:
                raise TypeError("Argument 'a' has incorrect type (expected "
                                f"cupy._core.core._ndarray_base, got {type(item).__name__})")
    if name in _TO_DEVICE and args and isinstance(args[0], (list, tuple)):
        leaves = list(_leaves(args[0]))
        if any(type(v) is ndarray for v in leaves) and \
                not all(type(v) is ndarray for v in leaves):
            raise TypeError(_NO_IMPLICIT)


def _leaves(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _check_array_argument(name, args):
    if name in _CONSTRUCTORS or not args:
        return
    first = args[0]
    if isinstance(first, (bool, int, float, complex, _np.generic)):
        raise TypeError(f"cupy.{name} takes an array, not the Python scalar {first!r}")
    if isinstance(first, (list, tuple)):
        raise TypeError(f"cupy.{name} takes an array, not a {type(first).__name__}")


_TO_DEVICE = {"array", "asarray", "asanyarray", "ascontiguousarray"}


def _function(func, name, exempt=False, qualified=None):
    qualified = qualified or name

    def wrapper(*args, **kwargs):
        _check_signature(qualified, args, kwargs)
        _check_arrays(name, args, kwargs)
        if not exempt:
            _check_array_argument(name, args)
        if name in _TO_DEVICE and args:  # host to device: the one place NumPy data may enter
            return _wrap(_np.array(func(_host(args[0]), *_unwrap(args[1:], name),
                                        **_unwrap(kwargs, name)), copy=name == "array"))
        return _wrap(func(*_unwrap(args, name), **_unwrap(kwargs, name)))
    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__module__ = "cupy"
    return wrapper


def _host(value):
    if type(value) is ndarray:
        return value._a
    if isinstance(value, (list, tuple)):
        return type(value)(_host(v) for v in value)
    return value


class ufunc:
    """A CuPy ufunc: takes arrays of this module and scalars, never lists or NumPy arrays."""

    def __init__(self, np_ufunc):
        self._u = np_ufunc
        self.__name__ = np_ufunc.__name__
        self.nin, self.nout = np_ufunc.nin, np_ufunc.nout

    def _call(self, method, args, kwargs):
        out = kwargs.get("out")
        if out is not None:
            kwargs = dict(kwargs, out=_unwrap(out, self.__name__))
        result = getattr(self._u, method)(*_operands(args), **_unwrap(kwargs, self.__name__))
        return out if out is not None else _wrap(result)

    def __call__(self, *args, **kwargs):
        return self._call("__call__", args, kwargs)

    def reduce(self, *args, **kwargs):
        return self._call("reduce", args, kwargs)

    def accumulate(self, *args, **kwargs):
        return self._call("accumulate", args, kwargs)

    def outer(self, a, b, **kwargs):
        return self._call("outer", (a, b), kwargs)

    def at(self, a, indices, b=None):
        if type(a) is not ndarray:
            raise TypeError(f"cupy.{self.__name__}.at needs a cupy.ndarray, got {type(a)}")
        self._u.at(a._a, _index(indices), *([] if b is None else [_operand(b)]))

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"


def asnumpy(a):
    return a.get() if type(a) is ndarray else _np.asarray(a)


def _submodule(name, parent, np_module):
    module = types.ModuleType(f"cupy.{name}")
    for attr in sorted(_SUB.get(name, ())):
        value = getattr(np_module, attr, None)
        if callable(value) and not isinstance(value, type):
            setattr(module, attr, _function(value, attr, qualified=f"{name}.{attr}"))
    setattr(parent, name, module)
    return module


class _Device:
    def __init__(self, device=0):
        self.id = device

    def synchronize(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def make() -> types.ModuleType:
    """A new module ``cupy``, emulated on the CPU (put it in ``sys.modules`` to use it)."""
    cupy = types.ModuleType("cupy", __doc__)
    cupy.__version__ = "14.2.0 (emulated on the CPU by tests/cupy_cases/fake_cupy.py)"
    cupy.__fake__ = True
    cupy.ndarray = ndarray
    cupy.ufunc = ufunc
    cupy.asnumpy = asnumpy
    cupy.get_array_module = lambda *args: cupy if any(type(a) is ndarray for a in args) else _np
    with open(_NAMES_FILE) as f:
        kinds = {line.split()[-1]: line.split()[0] for line in f
                 if line.strip() and not line.startswith("#")}
    for name in sorted(_TOP):
        if hasattr(cupy, name) or name in _SUB or not hasattr(_np, name):
            continue
        value = getattr(_np, name)
        if isinstance(value, types.ModuleType):
            continue
        if kinds.get(name) == "ufunc" and isinstance(value, _np.ufunc):
            setattr(cupy, name, ufunc(value))
        elif kinds.get(name) == "ufunc":  # a ufunc in CuPy, a function in NumPy (sinc...)
            setattr(cupy, name, _function(value, name, exempt=True))
        elif callable(value) and not isinstance(value, type) and \
                not type(value).__name__.endswith("Class") and not hasattr(value, "__getitem__"):
            setattr(cupy, name, _function(value, name))
        else:
            setattr(cupy, name, value)  # dtypes, constants, s_, newaxis...
    linalg = _submodule("linalg", cupy, _np.linalg)
    fft = _submodule("fft", cupy, _np.fft)
    cuda = types.ModuleType("cupy.cuda")
    cuda.Device = _Device
    cuda.runtime = types.SimpleNamespace(
        getDeviceCount=lambda: 1,
        getDeviceProperties=lambda device: {"name": b"CPU (fake CuPy)", "totalGlobalMem": 0})
    cuda.get_device_id = lambda: 0
    cupy.cuda = cuda
    cupy.__all_modules__ = {"cupy": cupy, "cupy.linalg": linalg, "cupy.fft": fft,
                            "cupy.cuda": cuda, **_cupyx()}
    return cupy


# cupyx functions whose first argument is no array (lu_solve's is the pair (lu, piv))
# (polygamma's order n is read as an array: CuPy 14 fails on a Python int there)
_NO_ARRAY_FIRST = {"lu_solve", "fftfreq", "rfftfreq", "next_fast_len"}


def _cupyx() -> dict:
    """``cupyx``, ``cupyx.scipy`` and its ``special``, ``signal``, ``linalg``, ``fft`` and
    ``stats`` (SciPy's functions on the emulated arrays), by module name; only the names
    CuPy has there (none where SciPy is not installed)."""
    try:
        import scipy.fft
        import scipy.linalg
        import scipy.signal
        import scipy.special
        import scipy.stats
    except ImportError:
        return {}
    cupyx = types.ModuleType("cupyx")
    cupyx.scipy = types.ModuleType("cupyx.scipy")
    modules = {"cupyx": cupyx, "cupyx.scipy": cupyx.scipy}
    for name, library in (("special", scipy.special), ("signal", scipy.signal),
                          ("linalg", scipy.linalg), ("fft", scipy.fft),
                          ("stats", scipy.stats)):
        module = types.ModuleType(f"cupyx.scipy.{name}")
        for attr in sorted(_SUB.get("cupyx", ())):
            if not attr.startswith(f"scipy.{name}."):
                continue
            attr = attr.rsplit(".", 1)[1]
            value = getattr(library, attr, None)
            if isinstance(value, _np.ufunc):  # (CuPy's are ufuncs too: they take scalars)
                setattr(module, attr, ufunc(value))
            elif callable(value):
                setattr(module, attr, _function(value, attr, exempt=attr in _NO_ARRAY_FIRST,
                                                qualified=f"cupyx.scipy.{name}.{attr}"))
        setattr(cupyx.scipy, name, module)
        modules[module.__name__] = module
    return modules


def install(monkeypatch=None) -> types.ModuleType:
    """Put a fresh fake ``cupy`` (and its submodules) in ``sys.modules``; with pytest's
    ``monkeypatch``, they are taken out again after the test."""
    cupy = make()
    for name, module in cupy.__all_modules__.items():
        if monkeypatch is not None:
            monkeypatch.setitem(sys.modules, name, module)
        else:
            sys.modules[name] = module
    return cupy


asarray = _function(_np.asarray, "asarray")  # for ndarray.__reduce__


if __name__ == "__main__" and sys.argv[1:] == ["--names"]:
    import cupy as real  # a real CuPy, to list its names

    print(f"# Public names of CuPy {real.__version__}: dir(cupy), dir(cupy.linalg), "
          "dir(cupy.fft), dir(cupy.ndarray),")
    print("# read by fake_cupy.py: the emulation offers only what CuPy has. Regenerate with")
    print("#   python tests/cupy_cases/fake_cupy.py --names > tests/cupy_cases/cupy_names.txt")
    for n in sorted(n for n in dir(real) if not n.startswith("_")):
        print(("ufunc " if type(getattr(real, n)).__name__ == "ufunc" else "") + n)
    for module in ("linalg", "fft"):
        for n in sorted(n for n in dir(getattr(real, module)) if not n.startswith("_")):
            print(f"{module}.{n}")
    for n in sorted(n for n in dir(real.ndarray) if not n.startswith("_")):
        print(f"ndarray.{n}")
    import cupyx.scipy.fft
    import cupyx.scipy.linalg
    import cupyx.scipy.signal
    import cupyx.scipy.special
    import cupyx.scipy.stats
    for module in ("special", "signal", "linalg", "fft", "stats"):
        for n in sorted(n for n in dir(getattr(cupyx.scipy, module)) if not n.startswith("_")):
            print(f"cupyx.scipy.{module}.{n}")


def _signature_text(func) -> str | None:
    """``a a_min a_max out=``: ``func``'s parameters as cupy_signatures.txt writes them."""
    try:
        parameters = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # (a Cython function without a signature)
        return None
    P, words, starred = inspect.Parameter, [], False
    for i, p in enumerate(parameters):
        if p.kind is P.VAR_POSITIONAL:
            words.append("*" + p.name)
            starred = True
        elif p.kind is P.VAR_KEYWORD:
            words.append("**" + p.name)
        else:
            if p.kind is P.KEYWORD_ONLY and not starred:
                words.append("*")
                starred = True
            words.append(p.name + ("=" if p.default is not P.empty else ""))
            if p.kind is P.POSITIONAL_ONLY and (
                    i + 1 == len(parameters) or parameters[i + 1].kind is not P.POSITIONAL_ONLY):
                words.append("/")
    return " ".join(words)


if __name__ == "__main__" and sys.argv[1:] == ["--signatures"]:
    import importlib

    import cupy as real  # a real CuPy, to read its signatures

    print(f"# Signatures of CuPy {real.__version__}'s Python functions (cupy, cupy.linalg, "
          "cupy.fft, cupyx.scipy.special,")
    print("# .signal, .linalg, .fft, .stats; name: parameters, '=' after one with a default), "
          "read by fake_cupy.py: a keyword")
    print("# CuPy lacks (np.clip's min=) fails here as on a GPU. Regenerate with a real CuPy:")
    print("#   python tests/cupy_cases/fake_cupy.py --signatures > "
          "tests/cupy_cases/cupy_signatures.txt")
    for prefix, module in [("", "cupy"), ("linalg.", "cupy.linalg"), ("fft.", "cupy.fft")] + \
            [(f"cupyx.scipy.{m}.", f"cupyx.scipy.{m}")
             for m in ("special", "signal", "linalg", "fft", "stats")]:
        module = importlib.import_module(module)
        for n in sorted(n for n in dir(module) if not n.startswith("_")):
            value = getattr(module, n)
            if callable(value) and not isinstance(value, type) and \
                    type(value).__name__ not in ("ufunc", "_UFunc"):
                text = _signature_text(value)
                if text is not None:
                    print(f"{prefix}{n}: {text}")
