"""The Dask target: the NumPy code with ``dask.array`` for ``numpy``, run chunk by chunk.

Compiling never imports Dask: the compiler only *names* it, so the source of a Dask
gradient can be printed where Dask is not installed.

>>> DASK.imported_name("numpy.linalg"), DASK.takes_lists, DASK.claims(("dask", 2, "f"))
('dask.array.linalg', False, True)
>>> DASK.stand_in("numpy.add", "at"), DASK.lacks_function("numpy", "sort")
(('s2sad.runtime.dask_compat', 'add_at'), True)
"""

from __future__ import annotations

import sys
from types import MappingProxyType

from .base import Backend

INSTALL_DASK = "pip install 'dask[array]' distributed  (or: pip install 's2sad[dask]')"

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
    # (np.add.at(s, i, g): scattered sensitivities, and np.s_[i] which writes the index)
    ("numpy.add", "at"): "add_at", ("numpy", "s_"): "s_",
    ("numpy.ndarray", "astype"): "astype",
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
        "shares_memory show_config show_runtime sort sort_complex split take_along_axis test "
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
    instead = MappingProxyType({
        ("numpy", "sort"): "da.topk for the largest items",
    })
    foreign = ("cupy",)
    install_hint = f"Install Dask: {INSTALL_DASK}. Printing the source needs no Dask."
    mix_hint = ("Give arrays of one kind: for Dask, convert the CuPy arrays with "
                "cupy.asnumpy(x) (s2sad's Dask target computes NumPy chunks); for CuPy, "
                "compute the Dask arrays (x.compute()) and move them with cupy.asarray.")
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
