"""Linear scores summed the way training sums them: ``row_dot`` of :mod:`._rows`.

``scores[i, k] = row_dot(x_i, coef[k]) + intercept[k]`` is exactly the activation
training computed for pattern ``i`` and neuron ``k`` (eight partial sums in
feature order, added pairwise, then the constant input's part), for dense and CSR
rows alike: a training pattern scores what it scored in training, and dense and
sparse copies of the data score the same bits. As fast as a matrix product (both
read the data once).
"""

from numba import njit, types
from numba.extending import overload

from ._rows import row_dot


def _n_rows(X, csr):
    """Rows of a dense ``X`` or of ``csr``."""


@overload(_n_rows, inline="always")
def _n_rows_impl(X, csr):
    if isinstance(csr, (types.NoneType, types.Omitted)) or csr is None:
        return lambda X, csr: X.shape[0]
    return lambda X, csr: csr[2].shape[0] - 1


def _sparse(csr):
    """Whether the rows are CSR rows: a constant the compiler folds."""


@overload(_sparse, inline="always")
def _sparse_impl(csr):
    answer = not (isinstance(csr, (types.NoneType, types.Omitted)) or csr is None)
    return lambda csr: answer


@njit(cache=True, nogil=True)
def linear_scores(rows, coef, intercept, out):
    """Fill ``out`` (n_rows, n_neurons) with every row's score for every neuron.

    Dense rows are read once for all neurons; CSR rows neuron by neuron, so that
    each neuron's weights (as wide as the vocabulary) stay in cache.
    """
    X, csr = rows.X, rows.csr
    n = _n_rows(X, csr)
    if _sparse(csr):
        for k in range(coef.shape[0]):
            for i in range(n):
                out[i, k] = row_dot(X, csr, i, coef[k]) + intercept[k]
    else:
        for i in range(n):
            for k in range(coef.shape[0]):
                out[i, k] = row_dot(X, csr, i, coef[k]) + intercept[k]
