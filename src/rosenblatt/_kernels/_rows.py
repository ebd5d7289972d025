"""Row primitives shared by the training loops: dot and axpy on dense or CSR rows.

Dense and CSR data travel through the same loops: a dense matrix is passed as
``X`` with empty ``data``/``indices``/``indptr``, a CSR matrix as its three
arrays with an empty ``X``. Summation runs over features in column order in both
cases, so dense and sparse inputs give bit-identical weights.
"""

from numba import njit


@njit(cache=True, inline="always")
def row_dot(X, data, indices, indptr, sparse, i, w):
    """Return ``x_i . w``."""
    acc = 0.0
    if sparse:
        for p in range(indptr[i], indptr[i + 1]):
            acc += data[p] * w[indices[p]]
    else:
        for j in range(X.shape[1]):
            acc += X[i, j] * w[j]
    return acc


@njit(cache=True, inline="always")
def row_axpy(coef, X, data, indices, indptr, sparse, i, w):
    """In place ``w += coef * x_i``."""
    if sparse:
        for p in range(indptr[i], indptr[i + 1]):
            w[indices[p]] += coef * data[p]
    else:
        for j in range(X.shape[1]):
            w[j] += coef * X[i, j]
