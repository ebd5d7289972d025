"""Row primitives shared by the training loops: dot, axpy and prefetch on dense or CSR rows.

A kernel receives ``X`` and ``csr``: a dense matrix comes as ``X`` with
``csr=None``, a CSR matrix as ``csr=(data, indices, indptr)`` with an empty
``X``. Each primitive is an ``@overload`` that picks its dense or CSR body from the
*type* of ``csr`` when the kernel is compiled, so one loop source serves both
layouts and neither pays a runtime branch (a runtime flag halved dense speed:
LLVM stops vectorising a loop that keeps both bodies).

Dot products are summed in eight interleaved partial sums, feature ``j`` going
to partial sum ``j % 8``, combined pairwise at the end. Independent partial sums
let the CPU overlap the additions; both layouts keep them as the 8 lanes of one
vector register (see :mod:`._simd`). Because a CSR row adds its nonzeros to the
same partial sums in the same column order (zeros add nothing), dense and sparse
inputs give bit-identical weights. ``tests/reference.py`` sums the same way.
"""

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..._core.kernel_constants import EXTENT_AHEAD, MAX_PREFETCH_LINES, SPARSE_PREFETCH_ENTRIES
from ._prefetch import prefetch
from ._simd import lane_axpy, lane_axpy2, lane_dot, lane_gather_dot

__all__ = [
    "EXTENT_AHEAD",
    "prefetch_extent",
    "prefetch_row",
    "row_axpy",
    "row_axpy2",
    "row_dot",
    "row_sqnorm",
]

# SPARSE_PREFETCH_ENTRIES: a fixed count compiles to straight-line code, while a
# loop to the row's end left a branch the CPU mispredicted on nearly every row
# (block-shuffled sparse epochs were about 1.2x slower for it). Lines past a
# short row's end are harmless.


def _is_dense(csr) -> bool:
    return isinstance(csr, (types.NoneType, types.Omitted)) or csr is None


def row_dot(X, csr, i, w):
    """Return ``x_i . w``."""


def row_axpy(coef, X, csr, i, w):
    """In place ``w += coef * x_i``."""


def row_axpy2(coef, coef2, X, csr, i, w, u):
    """In place ``w += coef * x_i`` and ``u += coef2 * x_i``, in one pass over the row: each
    of ``w`` and ``u`` gets exactly what :func:`row_axpy` gives it."""


def row_sqnorm(X, csr, i):
    """``||x_i||^2`` in float64, summed feature after feature (a zero adds nothing, so dense
    and CSR rows give the same bits, and scikit-learn's ``sqnorm`` gives them too)."""


def prefetch_row(X, csr, i):
    """Ask for the first cache lines of row ``i`` ahead of its use."""


def prefetch_extent(csr, i):
    """Ask for where CSR row ``i`` starts (nothing for dense rows)."""


@njit(cache=True, inline="always")
def _unsigned(index):
    """A CSR position or column as an unsigned index: numba then indexes with it directly,
    without the test and fix-up a signed index gets for counting from the end (about a
    third of the instructions of a scatter into the weights). Valid CSR holds none below 0."""
    return np.uint64(index)


@njit(cache=True, inline="always")
def _combine(p0, p1, p2, p3, p4, p5, p6, p7):
    return ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))


# CSR bodies index ``csr[0]``, ``csr[1]``, ``csr[2]`` where they use them rather
# than unpacking the tuple into names: the unpacked form made sparse epochs about
# 15 % slower (each pattern bound and released three array variables).
@overload(row_dot, inline="always")
def _row_dot(X, csr, i, w):
    if not _is_dense(csr):

        def sparse_dot(X, csr, i, w):
            p0, p1, p2, p3, p4, p5, p6, p7 = lane_gather_dot(
                csr[0], csr[1], csr[2][i], csr[2][i + 1], w
            )
            return _combine(p0, p1, p2, p3, p4, p5, p6, p7)

        return sparse_dot

    def dense_dot(X, csr, i, w):
        row = X[i]
        p0, p1, p2, p3, p4, p5, p6, p7 = lane_dot(row, w, row.shape[0])
        return _combine(p0, p1, p2, p3, p4, p5, p6, p7)

    return dense_dot


@overload(row_axpy, inline="always")
def _row_axpy(coef, X, csr, i, w):
    if not _is_dense(csr):

        def sparse_axpy(coef, X, csr, i, w):
            step = w.dtype.type(coef)
            for p in range(_unsigned(csr[2][i]), _unsigned(csr[2][i + 1])):
                w[_unsigned(csr[1][p])] += step * csr[0][p]

        return sparse_axpy

    # the step is rounded to the weights' type once, so float32 rows stay in float32
    def dense_axpy(coef, X, csr, i, w):
        lane_axpy(w.dtype.type(coef), X[i], w)

    return dense_axpy


@overload(row_axpy2, inline="always")
def _row_axpy2(coef, coef2, X, csr, i, w, u):
    if not _is_dense(csr):

        def sparse_axpy2(coef, coef2, X, csr, i, w, u):
            step = w.dtype.type(coef)
            step2 = u.dtype.type(coef2)
            for p in range(_unsigned(csr[2][i]), _unsigned(csr[2][i + 1])):
                # the column and value read once: after the store into w, LLVM would read
                # them again (for all it knows, w may share their memory)
                column, value = _unsigned(csr[1][p]), csr[0][p]
                w[column] += step * value
                u[column] += step2 * value

        return sparse_axpy2

    def dense_axpy2(coef, coef2, X, csr, i, w, u):
        lane_axpy2(w.dtype.type(coef), u.dtype.type(coef2), X[i], w, u)

    return dense_axpy2


@overload(row_sqnorm, inline="always")
def _row_sqnorm(X, csr, i):
    if not _is_dense(csr):

        def sparse_sqnorm(X, csr, i):
            total = 0.0
            for p in range(csr[2][i], csr[2][i + 1]):
                value = float(csr[0][p])
                total += value * value
            return total

        return sparse_sqnorm

    def dense_sqnorm(X, csr, i):
        row = X[i]
        total = 0.0
        for j in range(row.shape[0]):
            value = float(row[j])
            total += value * value
        return total

    return dense_sqnorm


@overload(prefetch_row, inline="always")
def _prefetch_row(X, csr, i):
    if not _is_dense(csr):
        data_step = 512 // csr.types[0].dtype.bitwidth  # entries per 64-byte line
        index_step = 512 // csr.types[1].dtype.bitwidth

        def sparse_prefetch(X, csr, i):
            start = csr[2][i]
            for k in range(SPARSE_PREFETCH_ENTRIES // data_step):
                prefetch(csr[0], start + k * data_step)
            for k in range(SPARSE_PREFETCH_ENTRIES // index_step):
                prefetch(csr[1], start + k * index_step)

        return sparse_prefetch

    # entries per 64-byte line, and the most worth fetching by hand, known when compiled
    step = max(1, 512 // X.dtype.bitwidth)
    most = step * MAX_PREFETCH_LINES

    def dense_prefetch(X, csr, i):
        row = X[i]
        for j in range(0, min(row.shape[0], most), step):
            prefetch(row, j)

    return dense_prefetch


@overload(prefetch_extent, inline="always")
def _prefetch_extent(csr, i):
    if not _is_dense(csr):

        def sparse_extent(csr, i):
            prefetch(csr[2], i)

        return sparse_extent
    return lambda csr, i: None
