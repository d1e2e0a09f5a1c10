"""The numba target: the NumPy gradient, compiled by numba in nopython mode.

Generated code for this target is NumPy's, lowered to what ``numba.njit`` compiles (its
tapes become lists numba types, ``reversed(range(n))`` a counted range) and compiled on
its first call. Compiling never imports numba: printing the source needs no numba.

>>> NUMBA.translates, NUMBA.compiler, NUMBA.claims(("nd", 2, "f"))
(False, 'numba', False)
>>> ("math", "sin") in NUMBA.compiles, ("numpy", "tanh") in NUMBA.compiles
(True, True)
>>> ("numpy", "einsum") in NUMBA.compiles
False
"""

from __future__ import annotations

from types import MappingProxyType

from .base import Backend

INSTALL_NUMBA = "pip install numba  (or: pip install 's2sad[numba]')"

_MATH = ("acos acosh asin asinh atan atan2 atanh ceil copysign cos cosh degrees erf erfc exp "
         "expm1 fabs floor hypot isfinite isinf isnan log log10 log1p log2 radians sin sinh "
         "sqrt tan tanh trunc")
# NumPy's functions numba compiles (numba.pydata.org/numba-doc/latest/reference/numpysupported
# .html), of those s2sad has rules for, whose generated adjoints use only these again
_NUMPY = ("abs absolute arccos arccosh arcsin arcsinh arctan arctan2 arctanh cbrt ceil clip "
          "cos cosh deg2rad dot empty exp exp2 expm1 floor full hypot log log10 log1p log2 "
          "logaddexp maximum mean minimum multiply negative ones ones_like outer power prod "
          "rad2deg reciprocal sign sin sinh sqrt square sum tan tanh zeros zeros_like where "
          "cumsum equal not_equal greater greater_equal less less_equal logical_and logical_or "
          "logical_not isfinite isnan isinf")


class NumbaBackend(Backend):
    """NumPy arrays, for a gradient numba compiles. It is never chosen by ``target="auto"``
    (its arrays are NumPy's): ``target="numba"`` asks for it.

    ``compiles`` holds the functions ``(module, name)`` the user's code and the generated
    code may call; every other call is refused at the user's line before numba runs.
    """

    name = "numba"
    title = "numba"
    module = "numpy"
    short = "np"
    tag = "numba"
    compiler = "numba"
    compiles = frozenset({("math", name) for name in _MATH.split()} |
                         {("numpy", name) for name in _NUMPY.split()} |
                         {("builtins", name) for name in
                          "range len float int abs min max bool round".split()})
    # the module of the numba versions of s2sad's runtime helpers, and which have one:
    # the name in generated code -> its numba version's name there
    kernel_module = "s2sad.runtime.numba_tape"
    kernel_helpers = MappingProxyType({
        "zeros_like_structure": "zeros_like", "shape_of": "shape_of", "sum_grad": "sum_grad",
        "unbroadcast": "unbroadcast", "reduced_size": "reduced_size",
        "sum_product": "sum_product", "unbroadcast_product": "unbroadcast_product",
        "prod_grad": "prod_grad", "cumsum_grad": "cumsum_grad",
        "broadcast_shape": "broadcast_shape", "scaled_power": "scaled_power"})
    # NumPy's functions numba compiles for a whole array, and s2sad's kernel along one axis
    # (an int): the keywords they may take; a call with more is refused at the user's line
    kernel_whole = MappingProxyType({("numpy", "prod"): frozenset({"axis", "keepdims"}),
                                     ("numpy", "cumsum"): frozenset({"axis"})})
    # NumPy's functions numba compiles only in part: ``(module, name)`` -> the version the
    # kernel calls (np.mean along an axis, np.sum with keepdims)
    # (and the generated code's copies of an item, np.array(s_f[i]))
    kernel_replaced = MappingProxyType({("numpy", "mean"): "mean_along",
                                        ("numpy", "sum"): "sum_along",
                                        ("numpy", "prod"): "prod_along",
                                        ("numpy", "cumsum"): "cumsum_along",
                                        ("numpy", "array"): "saved_item"})
    # NumPy's products of two arrays the kernel computes by loops where they are small (no
    # BLAS call: its fixed cost is most of an 8x8 product's time), numba's beyond
    kernel_small_products = MappingProxyType({("numpy", "dot"): "dot_small",
                                              ("numpy", "outer"): "outer_small"})
    # NumPy's functions the kernel computes by arithmetic LLVM vectorizes, for float64
    # arrays (numba's call the C library once an element): s2sad.runtime.numba_tanh; the
    # version for any argument, and the one for an operator's new array (into it)
    kernel_vectorized = MappingProxyType({("numpy", "tanh"): ("tanh_vectorized",
                                                              "tanh_in_place")})
    # math's functions whose domain Python checks (ValueError) where numba gives NaN: the
    # name -> the numba version that raises as Python does (math.log with a base: refused)
    kernel_checked = MappingProxyType({("math", name): f"checked_{name}" for name in (
        "log", "log2", "log10", "log1p", "sqrt", "acos", "asin", "acosh", "atanh")})
    # the attributes of arrays numba reads
    kernel_attributes = frozenset({"shape", "ndim", "size", "T", "real", "imag", "dtype"})
    # NumPy's elementwise functions whose numba versions on numbers give what NumPy's give
    # on arrays, element by element (s2sad.transforms.numba_fusion: one loop over the
    # elements): of one argument, of two, and the comparisons (-> their operator)
    fused_unary = frozenset((
        "sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh exp exp2 "
        "expm1 log log2 log10 log1p sqrt cbrt square absolute abs negative").split())
    fused_binary = frozenset("maximum minimum arctan2 hypot".split())
    # those numba computes one element at a time by the C library, where NumPy's loops on
    # arrays are vectorized (tanh: about 20 ns an element against 2): a fused run calls
    # NumPy's on whole arrays, before its loop (numba_fusion.ElementwiseFusion.whole)
    fused_numpy = frozenset((
        "sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh exp exp2 "
        "expm1 log log2 log10 log1p cbrt arctan2").split())
    fused_compare = MappingProxyType({"equal": "Eq", "not_equal": "NotEq", "greater": "Gt",
                                      "greater_equal": "GtE", "less": "Lt",
                                      "less_equal": "LtE"})
    install_hint = f"Install numba: {INSTALL_NUMBA}. Printing the source needs no numba."

    def claims(self, desc) -> bool:
        return False  # (NumPy arrays choose NumPy under target="auto")

    def import_error(self) -> ImportError | None:
        try:
            import numba  # noqa: F401
        except ImportError as exc:
            return exc
        return None


NUMBA = NumbaBackend()
