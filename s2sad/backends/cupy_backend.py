"""The CuPy target: the NumPy code with ``cupy`` for ``numpy``, run on an NVIDIA GPU.

Compiling never imports CuPy: the compiler only *names* it, so the source of a CuPy
gradient can be printed where CuPy is not installed.

>>> CUPY.imported_name("numpy.fft"), CUPY.takes_lists, CUPY.refuses(("nd", 2, "f"))
('cupy.fft', False, True)
>>> CUPY.refuses(("nd", 0, "f")), CUPY.refuses(("cupy", 2, "f"))
(False, False)
"""

from __future__ import annotations

from types import MappingProxyType

from .base import Backend

INSTALL_CUPY = "pip install cupy-cuda12x  (or: pip install 's2sad[cupy]')"


class CuPyBackend(Backend):
    """CuPy arrays, described ``("cupy", rank, dtype kind)``.

    CuPy takes no NumPy array and no list where it wants an array (generated code
    converts lists and numbers with ``cp.asarray``). For the NumPy 2 functions CuPy 14
    lacks, generated code calls s2sad's stand-ins in ``s2sad.runtime.cupy_compat``.
    """

    name = "cupy"
    title = "CuPy"
    module = "cupy"
    short = "cp"
    tag = "cupy"
    libraries = frozenset({"cupy", "cupyx"})
    takes_lists = False
    # NumPy's and SciPy's functions whose CuPy twin reads an argument as an array where
    # NumPy converts a list or a number: every call goes through the stand-in
    argument_stand_ins = MappingProxyType({
        ("numpy", "choose"): "choose",  # (CuPy's takes its choices as one array)
        ("scipy.special", "polygamma"): "polygamma",  # (CuPy's reads its order as an array)
    })
    # the NumPy functions CuPy lacks (module, name) -> the name of their stand-in, and those
    stand_ins = MappingProxyType({**argument_stand_ins,
        ("numpy.linalg", "vector_norm"): "vector_norm",
        ("numpy.linalg", "matrix_norm"): "matrix_norm",
        ("numpy", "vecdot"): "vecdot",
        ("numpy.linalg", "vecdot"): "vecdot",
        ("numpy.linalg", "svdvals"): "svdvals",
    })
    # NumPy's keywords CuPy 14's twin lacks (signatures of cupy.clip, cupy.sum...)
    keyword_stand_ins = MappingProxyType({
        ("numpy", "clip"): (frozenset({"min", "max"}), "clip"),
        ("numpy", "take"): (frozenset({"mode"}), "take"),
        ("numpy", "sum"): (frozenset({"initial"}), "sum_with_initial"),
        ("numpy", "var"): (frozenset({"correction"}), "var"),
        ("numpy", "std"): (frozenset({"correction"}), "std"),
        ("numpy.linalg", "cholesky"): (frozenset({"upper"}), "cholesky"),
    })
    # CuPy converts a list of numbers and device arrays mixed through NumPy, which a device
    # array refuses; its stack and concatenate take arrays only
    display_stand_ins = MappingProxyType({
        ("numpy", "array"): "array", ("numpy", "stack"): "stack",
        ("numpy", "concatenate"): "concatenate"})
    # "the value actually stored is undefined" (CuPy's documented difference from NumPy)
    repeats_undefined = True
    helpers = "s2sad.runtime.cupy_compat"
    # the NumPy 2.4 functions CuPy 14.2 has no twin of (dir(cupy), dir(cupy.linalg)), and
    # s2sad no stand-in for: CuPy code calling one would fail (refused when compiling)
    lacks = frozenset({("numpy", name) for name in (
        "asmatrix", "block", "bmat", "busday_count", "busday_offset", "datetime_as_string",
        "datetime_data", "einsum_path", "frompyfunc", "fromregex", "geomspace", "get_include",
        "getbufsize", "geterr", "geterrcall", "histogram_bin_edges", "info", "insert",
        "is_busday", "isnat", "matvec", "nanpercentile", "nanquantile", "nested_iters",
        "polyder", "polydiv", "polyint", "setbufsize", "seterr", "seterrcall", "show_runtime",
        "spacing", "test", "unstack", "vecmat")} | {("numpy.linalg", name) for name in (
            "diagonal", "multi_dot", "outer", "tensordot", "test", "trace")} | {
        ("numpy.fft", "test")})
    # SciPy's modules CuPy has its own of (cupyx.scipy), with the names CuPy 14 has there
    # (from cupyx/scipy/special/__init__.py and the reference of cupyx.scipy.signal; of
    # scipy.signal, its convolutions): generated code calling another one (scipy.special.jv)
    # is refused when compiling
    twins = MappingProxyType({
        "scipy.special": ("cupyx.scipy.special", frozenset(
            "bdtr bdtrc bdtri beta betainc betaincinv betaln boxcox boxcox1p btdtr btdtri "
            "cbrt chdtr chdtrc chdtri cosdg cotdg digamma entr erf erfc erfcinv erfcx erfinv "
            "exp10 exp2 expit expm1 expn fdtr fdtrc fdtri gamma gammainc gammaincc "
            "gammainccinv gammaincinv gammaln gammasgn gdtr gdtrc huber i0 i0e i1 i1e "
            "inv_boxcox inv_boxcox1p j0 j1 k0 k0e k1 k1e kl_div log1p log_expit log_ndtr "
            "log_softmax loggamma logit logsumexp lpmv multigammaln nbdtr nbdtrc nbdtri ndtr "
            "ndtri pdtr pdtrc pdtri poch polygamma pseudo_huber psi radian rel_entr rgamma "
            "round sindg sinc softmax sph_harm spherical_yn tandg wright_bessel xlog1py xlogy "
            "y0 y1 yn zeta".split())),
        "scipy.signal": ("cupyx.scipy.signal", frozenset(
            "choose_conv_method convolve convolve2d correlate correlate2d fftconvolve "
            "oaconvolve".split())),
        # (of linalg, fft and stats: the names of CuPy's reference, docs.cupy.dev/en/latest/
        # reference/scipy_linalg.html, scipy_fft.html and scipy_stats.html; stats has no
        # distribution, so norm.logpdf and the others are refused)
        "scipy.linalg": ("cupyx.scipy.linalg", frozenset(
            "bandwidth block_diag circulant companion convolution_matrix dft expm fiedler "
            "fiedler_companion hadamard hankel helmert hilbert khatri_rao leslie lu lu_factor "
            "lu_solve solve_triangular toeplitz".split())),
        "scipy.fft": ("cupyx.scipy.fft", frozenset(
            "dct dctn dst dstn fft fft2 fftfreq fftn fftshift fht get_fft_plan hfft hfft2 hfftn "
            "idct idctn idst idstn ifft ifft2 ifftn ifftshift ifht ihfft ihfft2 ihfftn irfft "
            "irfft2 irfftn next_fast_len rfft rfft2 rfftfreq rfftn".split())),
        "scipy.stats": ("cupyx.scipy.stats", frozenset(
            "boxcox_llf entropy trim_mean zmap zscore".split())),
    })
    # SciPy's modules CuPy has no twin of at all: there is no cupyx.scipy.integrate, and
    # SciPy's array-API helpers (xp_promote, in the scipy.optimize.rosen s2sad inlines) take
    # CuPy arrays only under SCIPY_ARRAY_API=1
    without = frozenset({"scipy.integrate", "scipy._lib._array_api"})
    # what to write instead of a refused SciPy function, where CuPy has the same computation
    instead = MappingProxyType({
        ("scipy.linalg", "cholesky"): "np.linalg.cholesky(a) (lower: scipy's is upper unless "
                                      "lower=True)",
        ("scipy.linalg", "solve"): "np.linalg.solve(a, b)",
        ("scipy.linalg", "inv"): "np.linalg.inv(a)",
        ("scipy.linalg", "det"): "np.linalg.det(a)",
        ("scipy.linalg", "eigh"): "np.linalg.eigh(a)",
    })
    foreign = ("nd",)
    install_hint = (f"Install CuPy for your CUDA version: {INSTALL_CUPY}. "
                    "Printing the source needs neither CuPy nor a GPU.")
    mix_hint = "Move them to one device first: cupy.asarray(x) or cupy.asnumpy(x)."

    def describe(self, value) -> tuple | None:
        if hasattr(value, "ndim"):
            return (self.tag, value.ndim, value.dtype.kind)  # an array on the GPU
        return None

    def refusal(self, name: str, single: bool) -> tuple[str, str]:
        what = "is a NumPy array" if single else "holds NumPy arrays"
        message = (f"the argument {name!r} {what}, and this gradient was made for CuPy "
                   "(target='cupy'): CuPy takes no NumPy array")
        hint = (f"Move it to the GPU first ({name} = cupy.asarray({name}))" if single else
                "Move them to the GPU first (cupy.asarray)") + \
            ", or make the gradient with target='auto' to compute where the arguments are " \
            "(NumPy arrays on the CPU, CuPy arrays on the GPU)."
        return message, hint

    def import_error(self) -> ImportError | None:
        try:
            import cupy  # noqa: F401
        except ImportError as exc:
            return exc
        return None


CUPY = CuPyBackend()
