"""Kernel values computed one pair at a time, the same way for training and prediction.

The dual perceptron decides ``y f(x) <= 0`` from sums of kernel values; a score
at rounding level decides a mistake. If prediction computed ``K(x, z)`` in a
different order than training did (BLAS sums a dot product differently for
different matrix shapes), a converged model could misclassify a training point.
So every kernel value here is one function of the two patterns alone: each dot
product or squared distance is summed over the features in increasing order,
whatever block the pair is computed in, and ``K(x, z) == K(z, x)`` exactly
(products and squared differences are symmetric in IEEE arithmetic).

For dense rows the loops run over a block of second patterns at once (``BT`` is
that block transposed, features x patterns), so the vector units work across
pairs while each pair's sum stays in feature order. CSR rows scatter the first
pattern into a dense work vector and walk the second one's nonzeros; their
squared distances are ``|x|^2 + |z|^2 - 2 x.z`` with the squared norms summed
once per row (a symmetric expression too).

``kind``: 0 linear ``x.z``, 1 poly ``(gamma x.z + coef0)^degree``, 2 rbf
``exp(-gamma |x - z|^2)``, 3 sigmoid ``tanh(gamma x.z + coef0)``.
"""

import math

import numpy as np
from numba import njit

from .bundles import KINDS, LINEAR, POLY, RBF, SIGMOID  # noqa: F401 (KINDS re-exported)


@njit(cache=True, inline="always")
def _finish(value, kind, gamma, coef0, degree):
    if kind == LINEAR:
        return value
    if kind == POLY:
        base = gamma * value + coef0
        out = 1.0
        for _ in range(degree):  # repeated products: the same bits on every call
            out *= base
        return out
    if kind == RBF:
        return math.exp(-gamma * max(value, 0.0))
    return math.tanh(gamma * value + coef0)


@njit(cache=True, nogil=True)
def dense_block(A, BT, kind, gamma, coef0, degree, out):
    """``out[i, j] = K(A[i], B[j])`` for dense float64 rows; ``BT`` is ``B.T`` (C order)."""
    n_features, n_b = BT.shape
    acc = np.empty(n_b)
    for i in range(A.shape[0]):
        acc[:] = 0.0
        if kind == RBF:
            for k in range(n_features):
                a = A[i, k]
                for j in range(n_b):
                    d = a - BT[k, j]
                    acc[j] += d * d
        else:
            for k in range(n_features):
                a = A[i, k]
                for j in range(n_b):
                    acc[j] += a * BT[k, j]
        for j in range(n_b):
            out[i, j] = _finish(acc[j], kind, gamma, coef0, degree)


@njit(cache=True, nogil=True)
def sparse_block(
    a_data,
    a_indices,
    a_indptr,
    a_norms,
    b_data,
    b_indices,
    b_indptr,
    b_norms,
    n_features,
    kind,
    gamma,
    coef0,
    degree,
    out,
):
    """``out[i, j] = K(a_i, b_j)`` for CSR rows (sorted indices); ``*_norms`` hold each
    row's squared norm (for rbf)."""
    work = np.zeros(n_features)
    for i in range(a_indptr.shape[0] - 1):
        for p in range(a_indptr[i], a_indptr[i + 1]):
            work[a_indices[p]] = a_data[p]
        for j in range(b_indptr.shape[0] - 1):
            dot = 0.0
            for p in range(b_indptr[j], b_indptr[j + 1]):
                dot += work[b_indices[p]] * b_data[p]
            if kind == RBF:
                dot = (a_norms[i] + b_norms[j]) - 2.0 * dot
            out[i, j] = _finish(dot, kind, gamma, coef0, degree)
        for p in range(a_indptr[i], a_indptr[i + 1]):
            work[a_indices[p]] = 0.0


@njit(cache=True, nogil=True)
def squared_norms(data, indptr, out):
    """Each CSR row's squared norm, summed over its nonzeros in column order."""
    for i in range(indptr.shape[0] - 1):
        total = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            total += data[p] * data[p]
        out[i] = total
