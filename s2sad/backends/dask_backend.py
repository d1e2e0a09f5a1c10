"""The Dask target: the NumPy code with ``dask.array`` for ``numpy``, run chunk by chunk.

Compiling never imports Dask: the compiler only *names* it, so the source of a Dask
gradient can be printed where Dask is not installed.

>>> DASK.imported_name("numpy.linalg"), DASK.takes_lists, DASK.claims(("dask", 2, "f"))
('dask.array.linalg', False, True)
>>> DASK.stand_in("numpy", "s_"), DASK.lacks_function("numpy", "sort")
(('s2sad.runtime.dask_compat', 's_'), True)
"""

from __future__ import annotations

import sys
from types import MappingProxyType

import numpy as np

from .base import Backend

INSTALL_DASK = "pip install 'dask[array]' distributed  (or: pip install 's2sad[dask]')"

# the functions of dask.array (and dask.array.linalg) with a rule in s2sad that take no
# NumPy array (AttributeError: 'numpy.ndarray' object has no attribute 'chunks')
_DASK_ARRAYS_ONLY = ("argmax", "argmin", "nanargmax", "nanargmin", "cumsum", "cumprod", "triu",
                     "tril", "repeat", "searchsorted", "digitize", "round", "around")
_DASK_LINALG_ONLY = ("inv", "solve", "svd", "cholesky", "norm", "qr", "lstsq")

# the NumPy functions Dask's array module lacks that have a rule in s2sad, each with the
# function of dask.array (or s2sad's helper) that computes it: the stand-ins
_STAND_INS = {
    ("numpy", "amax"): "amax", ("numpy", "amin"): "amin", ("numpy", "conjugate"): "conjugate",
    ("numpy", "copy"): "copy", ("numpy", "astype"): "astype", ("numpy", "size"): "size",
    ("numpy", "iscomplexobj"): "iscomplexobj", ("numpy", "isrealobj"): "isrealobj",
    ("numpy", "identity"): "identity", ("numpy", "inner"): "inner",
    ("numpy", "matrix_transpose"): "matrix_transpose",
    ("numpy.linalg", "matrix_transpose"): "matrix_transpose",
    ("numpy", "column_stack"): "column_stack", ("numpy", "row_stack"): "row_stack",
    ("numpy", "ascontiguousarray"): "ascontiguousarray",
    ("numpy", "asfortranarray"): "ascontiguousarray",
    ("numpy", "heaviside"): "heaviside", ("numpy", "vecdot"): "vecdot",
    ("numpy.linalg", "vecdot"): "vecdot", ("numpy.linalg", "vector_norm"): "vector_norm",
    ("numpy.linalg", "matrix_norm"): "matrix_norm",
    ("numpy", "acos"): "acos", ("numpy", "asin"): "asin", ("numpy", "atan"): "atan",
    ("numpy", "acosh"): "acosh", ("numpy", "asinh"): "asinh", ("numpy", "atanh"): "atanh",
    ("numpy", "atan2"): "atan2", ("numpy", "pow"): "pow", ("numpy", "concat"): "concat",
    ("numpy", "permute_dims"): "permute_dims",
    # (Dask's keeps a NumPy subclass, np.matrix, where NumPy's gives an ndarray)
    ("numpy", "array"): "array",
    # (Dask's takes along axis 0 where NumPy's takes of the flattened array, and no mode)
    ("numpy", "take"): "take", ("numpy", "index_exp"): "index_exp",
    # (Dask's read a.shape, a.ndim: a number's or a list's fail)
    ("numpy", "shape"): "shape", ("numpy", "ndim"): "ndim",
    # (Dask's takes no label repeated within one operand: a diagonal first)
    ("numpy", "einsum"): "einsum",
    # (Dask's transforms along an axis of one chunk alone: the stand-ins rechunk it)
    **{("numpy.fft", name): name for name in (
        "fft ifft rfft irfft hfft ihfft fft2 ifft2 rfft2 irfft2 fftn ifftn rfftn irfftn").split()},
    # (np.s_[i], which writes an index; a scattered sensitivity's np.add.at(s, i, g) is
    # s = add_at(s, i, g) on this target, whose arrays are not written in place)
    ("numpy", "s_"): "s_",
    ("numpy.ndarray", "astype"): "astype", ("numpy", "finfo"): "finfo",
    ("numpy", "iinfo"): "iinfo", ("numpy", "tensordot"): "tensordot", ("numpy", "split"): "split", ("numpy", "reshape"): "reshape",
    # (Dask has these, but its own takes no NumPy array: a NumPy parameter's argmax beside
    # Dask data. The stand-in calls NumPy's on NumPy arrays, Dask's on Dask arrays)
    **{("numpy", name): name for name in _DASK_ARRAYS_ONLY},
    **{("numpy.linalg", name): name for name in _DASK_LINALG_ONLY},
}


def _lacking() -> frozenset:
    """NumPy's functions with no twin in ``dask.array`` 2026.8 (``dir``) and no stand-in."""
    names = (
        "argpartition argsort array2string array_equal array_equiv array_repr array_split "
        "array_str asarray_chkfinite asmatrix bartlett base_repr binary_repr bitwise_count "
        "bitwise_invert bitwise_left_shift bitwise_right_shift blackman bmat broadcast_shapes "
        "busday_count busday_offset can_cast common_type convolve copyto correlate cross "
        "cumulative_prod cumulative_sum datetime_as_string datetime_data diag_indices "
        "diag_indices_from diagflat dsplit einsum_path fill_diagonal format_float_positional "
        "format_float_scientific from_dlpack frombuffer fromfile fromiter fromregex "
        "fromstring gcd genfromtxt geomspace get_include get_printoptions getbufsize geterr "
        "geterrcall hamming hanning histogram_bin_edges hsplit info interp intersect1d "
        "is_busday isdtype isfortran isnat isscalar issubdtype iterable ix_ kaiser kron lcm "
        "lexsort load loadtxt logspace mask_indices matvec may_share_memory min_scalar_type "
        "mintypecode nested_iters packbits partition place poly polyadd polyder polydiv "
        "polyfit polyint polymul polysub polyval printoptions promote_types put "
        "put_along_axis putmask real_if_close require resize roots save savetxt savez "
        "savez_compressed set_printoptions setbufsize setdiff1d seterr seterrcall setxor1d "
        "shares_memory show_config show_runtime sort sort_complex take_along_axis test "
        "trapezoid trim_zeros typename unique_all unique_counts unique_inverse unique_values "
        "unpackbits unstack unwrap vander vecmat vsplit").split()
    linalg = ("cond cross det diagonal eig eigh eigvals eigvalsh matmul matrix_power "
              "matrix_rank multi_dot outer pinv slogdet svdvals tensordot tensorinv "
              "tensorsolve test trace").split()
    return frozenset({("numpy", n) for n in names} | {("numpy.linalg", n) for n in linalg} |
                     {("numpy.fft", "test")})


class DaskBackend(Backend):
    """Dask arrays, described ``("dask", rank, dtype kind)``: lazy, chunked, computed by
    the active scheduler (threads, or a ``dask.distributed`` client).

    Dask's functions take no list where they want an array (generated code converts lists
    and numbers with ``da.asarray``). For the NumPy functions Dask lacks, generated code
    calls s2sad's stand-ins in ``s2sad.runtime.dask_compat``; the others are refused.
    NumPy arrays and numbers go with Dask arrays, as Dask's own functions take them.
    """

    name = "dask"
    title = "Dask"
    module = "dask.array"
    short = "da"
    tag = "dask"
    libraries = frozenset({"dask"})
    takes_lists = False
    stand_ins = MappingProxyType(_STAND_INS)
    helpers = "s2sad.runtime.dask_compat"
    lacks = _lacking() - frozenset(_STAND_INS)
    # (SciPy's functions take no Dask array: every SciPy call is refused on this target)
    without = frozenset({"scipy"})
    foreign = ("cupy",)
    install_hint = f"Install Dask: {INSTALL_DASK}. Printing the source needs no Dask."
    mix_hint = ("Give arrays of one kind: for Dask, convert the CuPy arrays with "
                "cupy.asnumpy(x) (s2sad's Dask target computes NumPy chunks); for CuPy, "
                "compute the Dask arrays (x.compute()) and move them with cupy.asarray.")
    # the NumPy functions whose Dask twin lacks some keywords: (the keywords, the stand-in)
    keyword_stand_ins = MappingProxyType({
        ("numpy", "clip"): (frozenset({"min", "max"}), "clip"),
        ("numpy", "nan_to_num"): (frozenset({"nan", "posinf", "neginf"}), "nan_to_num"),
        ("numpy", "sum"): (frozenset({"initial"}), "sum_with_initial"),
        ("numpy", "linspace"): (frozenset({"axis"}), "linspace"),
        **{("numpy", name): (frozenset({"correction"}), name)
           for name in ("var", "std", "nanvar", "nanstd")},
        **{("numpy", name): (frozenset({"dtype", "casting"}), name)
           for name in ("concatenate", "stack")},
    })
    # (Dask's index takes one array of indices, of one axis; its arrays have no tolist
    # and no __round__)
    python_stand_ins = MappingProxyType({"index": "index", "round": "python_round",
                                         "tolist": "tolist"})
    joins = ("nd",)
    settles = True

    def describe(self, value) -> tuple | None:
        if self.array_type(type(value)):
            return (self.tag, value.ndim, value.dtype.kind)
        return None

    def array_type(self, kind) -> bool:
        return kind.__name__ == "Array" and kind.__module__.startswith("dask.array")

    def refusal(self, name: str, single: bool) -> tuple[str, str]:
        what = "is a CuPy array" if single else "holds CuPy arrays"
        message = (f"the argument {name!r} {what}, and this gradient was made for Dask "
                   "(target='dask'): its Dask arrays hold NumPy chunks")
        hint = (f"Move it to the host first ({name} = cupy.asnumpy({name}))" if single else
                "Move them to the host first (cupy.asnumpy)") + \
            ", or make the gradient with target='cupy' for arrays on the GPU alone."
        return message, hint

    def unknown_chunks(self, name: str, value) -> tuple[str, str] | None:
        """``(message, hint)`` where ``value``, an argument, is a Dask array whose chunk
        sizes are unknown (``x[x > 0]``): its shape is not known without computing."""
        if not self.is_lazy(value) or all(n == n for n in value.shape):
            return None
        return (f"the argument {name!r} is a Dask array of unknown chunk sizes (shape "
                f"{value.shape}): s2sad's Dask target reads the shapes of arrays before "
                "computing them",
                f"Compute its chunk sizes first: {name} = {name}.compute_chunk_sizes() (or "
                f"give the sizes: {name} = {name}.rechunk(...)); the rows of a mask "
                "(x[x > 0]) can be weights instead (x * (x > 0)).")

    def none_given(self, values) -> tuple[str, str] | None:
        """``(message, hint)`` where no argument is (or holds) a Dask array: Dask's own
        functions take only Dask arrays where s2sad's code gives them NumPy's
        (``da.argmax``, ``da.cumsum``, ``da.linalg.inv``...).

        >>> DASK.none_given([np.ones(3), 2.0])[0][:57]
        "target='dask' was asked, and no argument is a Dask array:"
        """
        if any(map(self._holds_lazy, values)):
            return None
        return ("target='dask' was asked, and no argument is a Dask array: the gradient "
                "calls Dask's functions, and some of them take only Dask arrays",
                "Give the data as Dask arrays (X = da.from_array(X, chunks=...)), or make the "
                "gradient with target='auto' (or 'numpy') for NumPy arrays.")

    def _holds_lazy(self, value, depth: int = 0) -> bool:
        """Is ``value`` a Dask array, or a list, tuple, dict or object holding one?"""
        if self.is_lazy(value):
            return True
        if depth > 8:  # (a structure that holds itself: no further)
            return False
        if isinstance(value, (list, tuple)):
            return any(self._holds_lazy(v, depth + 1) for v in value)
        if isinstance(value, dict):
            return any(self._holds_lazy(v, depth + 1) for v in value.values())
        fields = getattr(value, "__dict__", None)
        return isinstance(fields, dict) and not isinstance(value, type) and \
            any(self._holds_lazy(v, depth + 1) for v in fields.values())

    def is_lazy(self, value) -> bool:
        """Is ``value`` a Dask array (whose computing is left for later)?"""
        array = getattr(sys.modules.get("dask.array"), "Array", None)
        return array is not None and isinstance(value, array)

    def import_error(self) -> ImportError | None:
        try:
            import dask.array  # noqa: F401
        except ImportError as exc:
            return exc
        return None


DASK = DaskBackend()


def _split(a, indices_or_sections, axis=0):
    """``np.split`` by slicing (Dask has no ``split``)."""
    n = a.shape[axis]
    if isinstance(indices_or_sections, int):
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        step = n // indices_or_sections
        cuts = list(range(step, n, step)) if step else []
    else:
        cuts = [int(i) for i in indices_or_sections]
    bounds = [0, *cuts, n]
    before = (slice(None),) * (axis % a.ndim)
    return [a[before + (slice(low, max(low, high)),)] for low, high in zip(bounds, bounds[1:])]


def _tensordot(a, b, axes=2):
    """``tensordot`` with non-negative axes, and the chunks of ``b``'s contracted axes made
    ``a``'s: Dask's own, given ``axes=([-1], [-1])``, drops rows without a word."""
    module = sys.modules["dask.array"]
    a, b = module.asarray(a), module.asarray(b)
    if isinstance(axes, int):
        left, right = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        left, right = ([axis] if isinstance(axis, int) else list(axis) for axis in axes)
    left, right = [axis % a.ndim for axis in left], [axis % b.ndim for axis in right]
    b = b.rechunk({r: a.chunks[l] for l, r in zip(left, right)})
    return module.tensordot(a, b, axes=(left, right))  # (Dask's reads negative axes wrong)


class Namespace:
    """``dask.array`` as s2sad's runtime helpers read an array module (``xp``): with the
    few NumPy names they use that Dask lacks (``ndarray``, ``iscomplexobj``, ``finfo``,
    ``split``...), each computing nothing.

    >>> import numpy as np
    >>> xp = Namespace(np)  # (any module: the names it has are its own)
    >>> xp.sum is np.sum, xp.iscomplexobj(np.ones(2))
    (True, False)
    """

    def __init__(self, module):
        self.module = module
        self.__name__ = module.__name__

    def __getattr__(self, name):
        if name in _ALIGNED:
            return _ALIGNED[name]
        if name == "linalg":
            return _Linalg(self.module.linalg)
        found = getattr(self.module, name, _EXTRA.get(name, _MISSING))
        if found is _MISSING:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        return self.module.Array if name == "ndarray" else found

    def __repr__(self) -> str:
        return f"<{self.__name__}, as s2sad's helpers read it>"


class _Linalg:
    """``dask.array.linalg`` as s2sad's helpers read it: with the functions in
    ``LINALG_ALIGNED`` for Dask's own (``s2sad.runtime.dask_compat`` puts there NumPy's
    factorizations, applied matrix by matrix, whose Dask twins' results or chunks differ)."""

    def __init__(self, module):
        self.module = module

    def __getattr__(self, name):
        return LINALG_ALIGNED[name] if name in LINALG_ALIGNED else getattr(self.module, name)


_MISSING = object()
# the functions s2sad's helpers call for Dask's own of that name: filled by
# s2sad.runtime.dask_compat (whose stand-ins compute; this module only names them)
_ALIGNED = {"tensordot": _tensordot}
LINALG_ALIGNED: dict = {}
_EXTRA = {"iscomplexobj": lambda x: np.dtype(getattr(x, "dtype", np.result_type(x))).kind == "c",
          "finfo": np.finfo, "iinfo": np.iinfo, "split": _split, "ndarray": None,
          "size": lambda a, axis=None: int(np.prod(a.shape)) if axis is None else a.shape[axis],
          "copy": lambda a: a.copy()}
_EXTRA["isrealobj"] = lambda x: not _EXTRA["iscomplexobj"](x)
