"""Derivative rules for NumPy's products and ``np.linalg``.

``einsum`` takes its operands as separate arguments; a rule's parameters are bound
one to one (the compiler does not bind ``*args``), so the rule names up to six
operands (``a`` to ``f``) and passes them on as a tuple (the absent ones ``None``).

>>> import numpy as np
>>> from s2sad import registry
>>> a = np.array([[2.0, 1.0], [1.0, 3.0]])
>>> registry.lookup(np.linalg.det).adjoint(1.0, np.linalg.det(a), a)  # the cofactors
array([[ 3., -1.],
       [-1.,  2.]])
"""

import numpy as np

from ..registry import defdtype, deffacts, defvjp, refuse_values
from ..runtime import (as_gradient, cholesky_grad, cofactors, diag_grad, diagonal_grad,
                       dot_grad_left, dot_grad_right, einsum_grad, gap_quotient, inner_grad,
                       kron_grad, matmul_grad_left, matmul_grad_right, quotient, read_triangle,
                       solve_grad, svd_kept, tensordot_grad, trace_grad, vecdot_grad)


@defvjp(np.dot, shape="other")
def dot(g, ans, x, y):
    return dot_grad_left(g, x, y), dot_grad_right(g, x, y)


@defvjp(np.matmul, shape="other")
def matmul(g, ans, x, y):
    return matmul_grad_left(g, x, y), matmul_grad_right(g, x, y)


@defvjp(np.tensordot, shape="other")
def tensordot(g, ans, x, y, axes=2):
    return tensordot_grad(g, x, y, axes, 0), tensordot_grad(g, x, y, axes, 1)


@defvjp(np.vdot, shape="scalar")
def vdot(g, ans, a, b):
    return np.reshape(g * np.ravel(b), np.shape(a)), np.reshape(g * np.ravel(a), np.shape(b))


@defvjp(np.inner, shape="other")
def inner(g, ans, a, b):
    return inner_grad(g, a, b, 0), inner_grad(g, a, b, 1)


deffacts(np.outer, fresh=True)  # (a new array: an accumulation into it may be in place)
# (CuPy reads both operands of these as arrays, a.ndim: a number there is converted)
deffacts(np.dot, np.vdot, np.inner, np.outer, np.tensordot, reads_arrays=(0, 1))
deffacts(np.dot, np.vdot, np.inner, raises="contract")  # (axes summed of two lengths)
deffacts(np.outer, raises=())  # (of the two flattened)


@defvjp(np.outer, shape="other")
def outer(g, ans, a, b, out=None):
    return (np.reshape(np.dot(g, np.ravel(b)), np.shape(a)),
            np.reshape(np.dot(np.ravel(a), g), np.shape(b)))


@defvjp(np.kron, shape="other")
def kron(g, ans, a, b):
    return kron_grad(g, a, b, 0), kron_grad(g, a, b, 1)


if hasattr(np, "vecdot"):  # NumPy >= 2.0
    @defvjp(np.vecdot, np.linalg.vecdot, shape="other")
    def vecdot(g, ans, x1, x2, out=None, axis=-1, keepdims=False):
        return vecdot_grad(g, x2, x1, axis, keepdims), vecdot_grad(g, x1, x2, axis, keepdims)


@defvjp(np.einsum, shape="other")
def einsum(g, ans, subscripts, a, b=None, c=None, d=None, e=None, f=None, *, out=None,
           optimize=False, dtype=None, order="K", casting="safe"):
    # (the first part is for the interleaved form, einsum(a, [0, 1], ...): refused below)
    return (einsum_grad(g, subscripts, (a, b, c, d, e, f), -1),
            einsum_grad(g, subscripts, (a, b, c, d, e, f), 0),
            einsum_grad(g, subscripts, (a, b, c, d, e, f), 1),
            einsum_grad(g, subscripts, (a, b, c, d, e, f), 2),
            einsum_grad(g, subscripts, (a, b, c, d, e, f), 3),
            einsum_grad(g, subscripts, (a, b, c, d, e, f), 4),
            einsum_grad(g, subscripts, (a, b, c, d, e, f), 5))


refuse_values(np.einsum, "subscripts", (str,),
              "Write the subscripts as one string: np.einsum('ij,jk->ik', a, b) for "
              "np.einsum(a, [0, 1], b, [1, 2], [0, 2]).")
defdtype(np.einsum, position=None)


@defvjp(np.trace, shape="other")
def trace(g, ans, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return trace_grad(g, a, offset, axis1, axis2)


defdtype(np.trace, position=4)


@defvjp(np.diagonal, shape="other")
def diagonal(g, ans, a, offset=0, axis1=0, axis2=1):
    return diagonal_grad(g, a, offset, axis1, axis2)


@defvjp(np.diag, shape="other")
def diag(g, ans, v, k=0):
    return diag_grad(g, v, k)


# --- np.linalg (stacks of matrices in the last two axes) ------------------------------


@defvjp(np.linalg.inv, shape="other")
def inv(g, ans, a):
    return -np.swapaxes(ans, -1, -2) @ g @ np.swapaxes(ans, -1, -2)


@defvjp(np.linalg.det, shape="other")
def det(g, ans, a):
    # d det(a) = the cofactors of a (det(a) inv(a)^T where a is invertible)
    return np.expand_dims(g, (-2, -1)) * cofactors(a)


deffacts(np.linalg.slogdet, fields=(("sign", "logabsdet"), (-2, -2)))


@defvjp(np.linalg.slogdet, shape="sequence")
def slogdet(g, ans, a):
    # (sign, log|det|): only log|det| is differentiable
    return np.expand_dims(g[1], (-2, -1)) * np.swapaxes(np.linalg.inv(a), -1, -2)


@defvjp(np.linalg.solve, shape="other")
def solve(g, ans, a, b):
    return solve_grad(g, ans, a, b, 0), solve_grad(g, ans, a, b, 1)


@defvjp(np.linalg.cholesky, shape="other")
def cholesky(g, ans, a, upper=False):
    # symmetric: the gradient of a function of a symmetric matrix's lower triangle (the
    # upper one for upper=True), in the triangle read where a is not symmetric
    return read_triangle(cholesky_grad(np.swapaxes(g, -1, -2) if upper else g,
                                       np.swapaxes(ans, -1, -2) if upper else ans), a, not upper)


# --- eigen- and singular value decompositions ----------------------------------------
# eigh, eigvalsh and cholesky read one triangle of ``a``, which stands for a symmetric
# matrix: their gradients are symmetric (exact along symmetric changes of ``a``), as
# JAX's are, where ``a`` is symmetric; where it is not, they are in the triangle read
# (``read_triangle``: exact in every entry). The eigenvectors' terms divide by the gaps
# w[j] - w[i] (``quotient``: 0 where the numerator is, infinite where a repeated
# eigenvalue's eigenvectors would need a derivative they do not have).


deffacts(np.linalg.eigh, fields=(("eigenvalues", "eigenvectors"), (-1, 0)))


@defvjp(np.linalg.eigh, shape="sequence")
def eigh(g, ans, a, UPLO="L"):
    # v (diag(g_w) + (v^T g_v)[i, j] / (w[j] - w[i]), i != j) v^T, made symmetric
    vt = np.swapaxes(ans[1], -1, -2)
    turns = gap_quotient(vt @ as_gradient(ans[1], g[1]), ans[0])
    full = (ans[1] * np.expand_dims(as_gradient(ans[0], g[0]), -2) + ans[1] @ turns) @ vt
    return read_triangle((full + np.swapaxes(full, -1, -2)) / 2.0, a, UPLO in ("L", "l"))


@defvjp(np.linalg.eigvalsh, shape="other")
def eigvalsh(g, ans, a, UPLO="L"):
    v = np.linalg.eigh(a, UPLO)[1]
    return read_triangle((v * np.expand_dims(as_gradient(ans, g), -2)) @ np.swapaxes(v, -1, -2),
                         a, UPLO in ("L", "l"))


deffacts(np.linalg.svd, fields=(("U", "S", "Vh"), (0, -1, 0)))


@defvjp(np.linalg.svd, shape="sequence")
def svd(g, ans, a, full_matrices=True, *, hermitian=False):
    # a = u diag(s) vh, k = min(m, n) singular vectors (Townsend, "Differentiating the
    # singular value decomposition", 2016), with the gaps s[j]^2 - s[i]^2:
    # u ((u^T g_u - g_u^T u) / gaps s + diag(g_s) + s (vh g_vh^T - g_vh vh^T) / gaps) vh,
    # plus the parts of g_u and g_vh outside the spaces of u and vh, divided by s
    k = svd_kept(g, ans, full_matrices)
    u = ans[0][..., :k]
    vh = ans[2][..., :k, :]
    gu = as_gradient(ans[0], g[0])[..., :k]
    gvh = as_gradient(ans[2], g[2])[..., :k, :]
    ut = np.swapaxes(u, -1, -2)
    v = np.swapaxes(vh, -1, -2)
    inner = gap_quotient(ut @ gu - np.swapaxes(gu, -1, -2) @ u, ans[1] ** 2) * \
        np.expand_dims(ans[1], -2) + \
        np.expand_dims(as_gradient(ans[1], g[1]), -1) * np.eye(k) + \
        np.expand_dims(ans[1], -1) * gap_quotient(vh @ np.swapaxes(gvh, -1, -2) - gvh @ v,
                                                  ans[1] ** 2)
    outside = quotient(gu - u @ (ut @ gu), np.expand_dims(ans[1], -2)) @ vh + \
        u @ quotient(gvh - gvh @ v @ vh, np.expand_dims(ans[1], -1))
    # hermitian=True reads a's lower triangle (eigh's): in it where a is not symmetric
    return read_triangle(u @ inner @ vh + outside, a, True) if hermitian else \
        u @ inner @ vh + outside


if hasattr(np.linalg, "svdvals"):  # NumPy >= 2.0
    @defvjp(np.linalg.svdvals, shape="other")
    def svdvals(g, ans, x):
        # u diag(g) vh, from the reduced decomposition
        parts = np.linalg.svd(x, full_matrices=False)
        return (parts[0] * np.expand_dims(as_gradient(ans, g), -2)) @ parts[2]
