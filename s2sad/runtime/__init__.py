"""The helpers generated code imports: ``from s2sad.runtime import as_gradient, ...``.

>>> import numpy as np
>>> unbroadcast(np.ones((3, 4)), np.zeros(4))
array([3., 3., 3., 3.])
>>> unbroadcast(np.ones((3, 4)), np.zeros((3, 1)))
array([[4.],
       [4.],
       [4.]])
>>> unbroadcast(np.ones(3), 2.0)
np.float64(3.0)
>>> as_gradient([1.0, np.float64(2.0)], [3, np.float64(4.0)])
[3.0, np.float64(4.0)]

Each helper is small, pure, and readable on its own. Each works on NumPy and CuPy
arrays alike: it computes with the array module of its inputs (``xp = array_module(g,
x)``), so CuPy data stays on the GPU. Shapes, axes and index bookkeeping stay plain
Python on the host.

The package is split by role; this module gathers every name:

- :mod:`~s2sad.runtime.shapes`: shapes, broadcasting, ``unbroadcast``, and the basics;
- :mod:`~s2sad.runtime.structures`: lists, dicts, seeds, ``as_gradient``;
- :mod:`~s2sad.runtime.reductions`: adjoints of sums, products, means, extrema;
- :mod:`~s2sad.runtime.products`: adjoints of dot, matmul, einsum, linear algebra;
- :mod:`~s2sad.runtime.arrays`: adjoints of indexing, joins, pads, takes;
- :mod:`~s2sad.runtime.elementwise`: casts, powers and quotients;
- :mod:`~s2sad.runtime.matrices`: the pieces of ``scipy.linalg``'s factors and matrices;
- :mod:`~s2sad.runtime.spectral`: lengths, crops and pads of the FFT rules.

Generated code imports every helper of those from here, not from the submodule that
defines it: :func:`public_module` names the module an import line (or an error message)
gives. The helpers of other roles are imported from their own module, which this one
does not gather (``from s2sad.runtime.higher import sens_like``):

- :mod:`~s2sad.runtime.higher`: transposes of the helpers above, for derivatives of
  derivatives, forward mode and vjp;
- :mod:`~s2sad.runtime.hessians`, :mod:`~s2sad.runtime.linalg`: second derivatives of
  the reductions and of the linear-algebra helpers;
- :mod:`~s2sad.runtime.gradients`: gradients returned without a copy;
- :mod:`~s2sad.runtime.terms`: a loop's sums, a few passes at a time;
- :mod:`~s2sad.runtime.recursion`: recursive calls, through their own compiled vjp;
- :mod:`~s2sad.runtime.budget`: the memory budget of a loop's tape;
- :mod:`~s2sad.runtime.debug`: the checks of ``debug_nans=True``;
- :mod:`~s2sad.runtime.cupy_compat`: NumPy functions CuPy lacks, for the CuPy target;
- :mod:`~s2sad.runtime.dask_compat`: NumPy functions Dask lacks, for the Dask target, and
  the one ``dask.compute`` of a gradient's NumPy parts;
- :mod:`~s2sad.runtime.ode`: the adjoint and sensitivity systems of ``scipy.integrate``;
- :mod:`~s2sad.runtime.numpy_more`: positions and subscripts of the functions
  :mod:`s2sad.implementations` writes (``np.insert``, ``np.delete``, ``np.gradient``).
"""

from __future__ import annotations

from ..backends import DeviceShape, Shape, array_module  # noqa: F401
from ..errors import (DifferentiationError, NoDerivativeError, NonScalarOutputError,  # noqa: F401
                      UnsupportedSyntaxError)
from .shapes import (  # noqa: F401
    _shape, _ndim, _dtype, _to, _argsort, _LEADING, _spread, _SUMS, _LETTERS, _EINSUM_SIZE,
    _EINSUM_ROW, _sum_plan, _sum_down, _BROADCASTS, _SHAPES, shape_of, broadcast_shape,
    matmul_shape, _shape_type, _remember, _plan_down, _einsum_pair, sum_product,
    unbroadcast_product, _summed_axes, _constant_along, _sum_keeping, unbroadcast, _full,
    _float_type, _axes, _zeros,
)
from .structures import (  # noqa: F401
    SensitivityDict, zeros_like_structure, pack_like, _Missing, MISSING, item_or_missing,
    restore_item, add_sens, _has_none, _zero, _stacked, output_seed, as_gradient, _nested_ndim,
    _nested_shape, array_grad, sum_list_grad, list_grad, list_tangent, object_gradient,
    frozen_attributes, has_parameters, attribute_tangent, object_sensitivity, side_effect, sort_order,
    extreme_position, NOTHING, added_to, zip_lengths, check_zip_lengths,
    try_caught, try_steps, plus_part, plus_tangent, repeated_list_grad, repeated_list,
)
from .reductions import (  # noqa: F401
    sum_grad, reduced_size, extremum_grad, expand_reduced, prod_grad, cumsum_grad, cumprod_grad,
    var_grad, std_grad, average_grad, nansum_grad, nanmean_grad, ptp_grad, checked_quantiles, checked_cross_vector,
    quantile_dtype, one_axis, window_count, running_extremum, _accumulate, _scan, max_item,
    min_item,
    item_extremum_grad, item_extremum_tangent,
)
from .products import (  # noqa: F401
    summed_matmul_grad_left, _dot_shape, dot_grad_left, dot_grad_right, matmul_grad_left,
    matmul_grad_right, tensordot_grad, _safe_divide, _vector_norm_grad, norm_grad,
    diagonal_grad, trace_grad, diag_grad, inner_grad, kron_grad, _einsum_labels, einsum_grad,
    solve_grad, _products_but_one, _cofactor_frame, cofactors, cofactors_change,
    cofactors_second, cholesky_grad, svd_kept, svd_completed, svd_cut, vecdot_grad,
)
from .arrays import (  # noqa: F401
    transpose_grad, index_grad, _integer_arrays, last_writes, written_part, _spread_over,
    _sequence_like, _offsets, joined_grad, joined_dtype, concatenate_grad, stack_grad, _atleast,
    hstack_grad, vstack_grad, dstack_grad, column_stack_grad, split_grad, tile_grad,
    repeat_grad, _pad_widths, _pad_interior, pad_grad, pad_tangent, pad_values_grad, diff_grad,
    negated_shift, take_grad, take_along_axis_grad, sort_grad, choose_grad, linspace_grad,
    full_widths,
)
from .elementwise import (  # noqa: F401
    cast_like, check_real_power, check_in_place, check_number, check_no_function, check_distinct, check_flat, scaled_power, quotient,
    gap_quotient, clip_grad, unchanged_call, hypot_of,
    hypot_grad, dot_items, fsum_of,
)
from .matrices import (  # noqa: F401
    as_columns, from_columns, triangle, factor_part, block_diag_part, block_diag_place,
    toeplitz_grad, band_of, band_full, band_transposed, pivots_matrix, square_factors,
    eigh_refused, largest_rows, phase_checked, real_checked, full_rank_inverse, read_triangle,
    pinv_cut_checked,
    spread_triangle,
)
from .views import Transposed, raveled_in_place, view_axes, view_index, view_shape  # noqa: F401,E501
from .spectral import (  # noqa: F401
    fit_axes, lengths, fft_axes, fft_sizes, half_sizes, hermitian_weights, swapped_norm,
    axis_tuple, trig_adjoint, trig_transform,
)


def public_module(module: str) -> str:
    """The module to name for a helper whose ``__module__`` is ``module``: this package,
    for the submodules it gathers; ``module`` itself otherwise (the helpers of higher
    derivatives, loops, recursion, debugging and CuPy, which it does not gather).

    >>> public_module("s2sad.runtime.structures"), public_module("s2sad.runtime.debug")
    ('s2sad.runtime', 's2sad.runtime.debug')

    Generated code reads ``from s2sad.runtime import as_gradient``, whichever file
    ``as_gradient`` is written in (:mod:`s2sad.codegen`, :mod:`s2sad.transforms.higher`
    and :func:`s2sad.registry.describe_function` ask this function).
    """
    package, _, submodule = module.rpartition(".")
    return __name__ if package == __name__ and submodule in _GATHERED else module


# the submodules whose names this package gathers (imported above)
_GATHERED = ("shapes", "structures", "reductions", "products", "arrays", "elementwise",
             "matrices", "spectral", "views")

# (imported for what it registers: the Dask functions s2sad's helpers call by NumPy's
# values, dask.array.linalg's factorizations among them; it imports no Dask)
from . import dask_compat  # noqa: E402,F401
