"""Kernel values for the dual (kernel) perceptron: the kernel, and the training table.

- :class:`Kernel`: the kernel values, one pair at a time, identical in training
  and prediction (see :mod:`rosenblatt.engine.kernels.gram`);
- :class:`KernelTable`: the training kernel values laid out for the compiled
  epoch, the whole Gram matrix when it fits the cache budget, else a column
  per support vector, computed when it first errs (and given back, under a
  budget, when it leaves the support).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._core.config import KERNEL_BLOCK_VALUES
from .kernels.bundles import Table
from .primal import readonly

__all__ = ["BlockTable", "Kernel", "KernelTable", "as_float64", "block_rows"]


def block_rows(n_samples: int) -> int:
    """Training rows whose kernel values are computed per call (about
    ``KERNEL_BLOCK_VALUES`` values)."""
    return int(min(max(KERNEL_BLOCK_VALUES // max(n_samples, 1), 16), 1024))


def as_float64(rows: Any) -> Any:
    """``rows`` (dense or sparse) in float64: a copy only when they are not already."""
    return rows if rows.dtype == np.float64 else rows.astype(np.float64)


class Kernel:
    """``K(first_i, second_j)`` for named, callable or precomputed kernels.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable
    gamma, coef0, degree : the named kernels' parameters
    params : dict, the keyword arguments of a callable kernel
    """

    def __init__(self, kernel, gamma=None, coef0=1.0, degree=3, params=None):
        self.kernel, self.gamma, self.coef0, self.degree = kernel, gamma, coef0, degree
        self.params = params or {}

    @property
    def precomputed(self) -> bool:
        return self.kernel == "precomputed"

    def values(self, first: Any, second: Any) -> np.ndarray:
        """The (n_first, n_second) float64 matrix of ``K(first_i, second_j)``.

        Named kernels sum every pair in feature order, so a value never depends
        on the block it was computed in, and ``K(x, z) == K(z, x)`` exactly.
        A callable is called on the pairs as given (scikit-learn's
        ``pairwise_kernels``); a precomputed kernel has no patterns to pair.
        """
        if callable(self.kernel):
            from sklearn.metrics.pairwise import pairwise_kernels

            # float32 patterns reach the callable as the float64 numbers they stand for
            first, second = as_float64(first), as_float64(second)
            return np.asarray(
                pairwise_kernels(first, second, metric=self.kernel, **self.params), dtype=np.float64
            )
        from .kernels.bundles import KINDS
        from .kernels.loader import compiled_kernel

        dense_block = compiled_kernel("gram.dense_block")
        sparse_block = compiled_kernel("gram.sparse_block")
        squared_norms = compiled_kernel("gram.squared_norms")

        kind = KINDS[self.kernel]
        gamma = 0.0 if self.gamma is None else float(self.gamma)
        out = np.empty((first.shape[0], second.shape[0]))
        if sp.issparse(first) or sp.issparse(second):
            a, b = sp.csr_matrix(first, dtype=np.float64), sp.csr_matrix(second, dtype=np.float64)
            a, b = a.sorted_indices(), b.sorted_indices()  # copies: the input stays as it was
            norms = [np.empty(m.shape[0]) for m in (a, b)]
            for m, norm in zip((a, b), norms):
                squared_norms(m.data, m.indptr, norm)
            sparse_block(
                a.data,
                a.indices,
                a.indptr,
                norms[0],
                b.data,
                b.indices,
                b.indptr,
                norms[1],
                a.shape[1],
                kind,
                gamma,
                float(self.coef0),
                int(self.degree),
                out,
            )
        else:
            # one copy each, converting float32 on the way (the block, and second transposed)
            dense_block(
                readonly(np.ascontiguousarray(first, dtype=np.float64)),
                readonly(np.ascontiguousarray(np.asarray(second).T, dtype=np.float64)),
                kind,
                gamma,
                float(self.coef0),
                int(self.degree),
                out,
            )
        return out

    def training_rows(self, X: Any, n_rows: int | None = None) -> Callable[[int, int], np.ndarray]:
        """rows(a, b): ``K(x_j, x_i)`` for training samples ``a <= j < b`` against the
        first ``n_rows`` samples ``i`` (default: all), the ones an epoch presents."""
        n_rows = X.shape[0] if n_rows is None else n_rows
        if self.precomputed:
            if sp.issparse(X):
                return lambda a, b: X[a:b, :n_rows].toarray().astype(np.float64, copy=False)
            return lambda a, b: np.asarray(X[a:b, :n_rows], dtype=np.float64)
        presented = X if n_rows == X.shape[0] else X[:n_rows]  # CSR rows: copied once
        return lambda a, b: self.values(X[a:b], presented)

    def against(self, X: Any, support_vectors: Any, support: np.ndarray) -> np.ndarray:
        """Kernel values of test rows ``X`` against the support vectors, (n_test, n_support),
        the same numbers training used (``X`` holds kernel values when precomputed)."""
        if self.precomputed:
            K = X[:, support]
            return K.toarray() if sp.issparse(K) else np.asarray(K, dtype=np.float64)
        if callable(self.kernel):  # called as in training: support vector first
            return self.values(support_vectors, X).T
        return self.values(X, support_vectors)


class KernelTable:
    """Kernel values between training samples, laid out for the compiled epoch.

    ``table[i, slot_of[j]] = K(x_j, x_i)`` for the samples ``i < n_rows`` that an
    epoch presents (all of them in ``fit``; the new batch, which a
    :meth:`DualState.extended` state lays out first, in ``partial_fit``). When
    those values for every ``j`` fit in ``cache_bytes``, every sample owns a
    slot from the start (slot ``j``, filled a block of samples at a time);
    otherwise a sample gets a slot (a column) when it first becomes a support
    vector, and only its own values are computed then. Every value is computed
    pair by pair (:class:`Kernel`), so both ways give the same numbers.

    Parameters
    ----------
    rows : callable(a, b) -> ndarray of shape (b - a, n_rows)
        ``K(x_j, x_i)`` for ``a <= j < b`` and ``i < n_rows``
        (:meth:`Kernel.training_rows`).
    n_samples : int
    cache_bytes : float
    n_rows : int, default=None
        Samples an epoch presents: the first ``n_rows`` (default: all).
    support : array-like of int, default=()
        Samples that are support vectors already (training goes on from an
        earlier state): they get their slots at once.
    """

    def __init__(self, rows, n_samples, cache_bytes, n_rows=None, support=()):
        self._rows = rows
        self._n = n_samples
        n_rows = n_samples if n_rows is None else n_rows
        self.cached = 8 * n_rows * n_samples <= cache_bytes
        if self.cached:
            self.table = np.empty((n_rows, n_samples))
            step = block_rows(n_rows)
            for a in range(0, n_samples, step):
                b = min(a + step, n_samples)
                self.table[:, a:b] = rows(a, b).T
            self.slot_of = np.arange(n_samples, dtype=np.int64)
            self.n_slots = n_samples
        else:
            self.table = np.empty((n_rows, min(16, n_samples)))
            self.slot_of = np.full(n_samples, -1, dtype=np.int64)
            self.n_slots = 0
            self._add_runs(np.sort(np.asarray(support, dtype=np.int64)))
        self._row_of = np.arange(n_samples, dtype=np.int64)  # row i holds sample i

    @property
    def n_rows(self) -> int:
        """The samples that have a row: those an epoch presents."""
        return self.table.shape[0]

    def view(self, order: np.ndarray, start: int, support: np.ndarray) -> Table:
        """The compiled epoch's ``Table`` for the presentations of ``order`` from
        ``start`` on: all of them (this table holds every presented row)."""
        return Table(self.table, self.slot_of, self._row_of, order.shape[0])

    def add(self, j: int) -> None:
        """Give training sample ``j`` a slot holding ``K(x_j, x_i)`` for every presented ``i``."""
        self._add_range(j, j + 1)

    def _add_runs(self, samples):
        """Slots for the sorted ``samples`` (the epoch sums over them from its first
        presentation), computed a run of consecutive samples at a time: an extended
        state's support vectors are one run."""
        step = block_rows(self.table.shape[0])
        breaks = np.flatnonzero(np.diff(samples) != 1) + 1
        for run in np.split(samples, breaks):
            for a in range(0, run.shape[0], step):
                self._add_range(int(run[a]), int(run[min(a + step, run.shape[0]) - 1]) + 1)

    def _add_range(self, a, b):
        """Slots for samples ``a <= j < b``."""
        needed = self.n_slots + (b - a)
        if needed > self.table.shape[1]:
            width = min(max(2 * self.table.shape[1], needed), self._n)
            grown = np.empty((self.table.shape[0], width))
            grown[:, : self.n_slots] = self.table[:, : self.n_slots]
            self.table = grown
        self.table[:, self.n_slots : needed] = self._rows(a, b).T
        self.slot_of[a:b] = np.arange(self.n_slots, needed)
        self.n_slots = needed


class BlockTable:
    """Kernel values for a support set of bounded size, a block of presentations at a time.

    Under a budget the support set stays small while the data may be large: rather
    than a column of ``K(x_j, x_i)`` over every presented ``i`` for each sample ``j``
    that joins (which a budget that evicts pays again and again), each block of
    ``block`` presentations gets the values of its samples against the support
    vectors at its start and against each other (a sample of the block may join),
    ``(block) x (n_support + block)`` values. With ``support_rows`` the support
    vectors get rows too (the Forgetron reads ``f`` at its oldest one). Every value is
    computed pair by pair (:class:`Kernel`), so the results are those of a cached
    Gram matrix, bit for bit.

    Parameters
    ----------
    kernel : Kernel
    patterns : array or sparse matrix of shape (n_samples, n_features)
        Every sample's pattern (or, for a precomputed kernel, its kernel row).
    block : int
        Presentations per block.
    support_rows : bool, default=False
    """

    def __init__(self, kernel: Kernel, patterns: Any, block: int, support_rows: bool = False):
        self._kernel, self._patterns = kernel, patterns
        self.block, self.support_rows = int(block), support_rows
        n = patterns.shape[0]
        self.slot_of = np.full(n, -1, dtype=np.int64)
        self._row_of = np.full(n, -1, dtype=np.int64)
        self.n_rows = n  # any sample may be presented

    def view(self, order: np.ndarray, start: int, support: np.ndarray) -> Table:
        """The ``Table`` of the presentations ``order[start:until]`` against ``support``
        (the support vectors now) and themselves."""
        until = min(start + self.block, order.shape[0])
        presented = order[start:until]
        columns = np.unique(np.concatenate((support, presented)))
        rows = columns if self.support_rows else np.unique(presented)
        self.slot_of[:] = -1
        self._row_of[:] = -1
        self.slot_of[columns] = np.arange(columns.shape[0])
        self._row_of[rows] = np.arange(rows.shape[0])
        values = self._values(columns, rows)
        return Table(values, self.slot_of, self._row_of, until)

    def add(self, j: int) -> None:
        """Never asked: every sample a block presents has its slot."""
        raise ValueError(f"sample {j} has no kernel values in this block")

    def _values(self, columns: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``values[r, c] = K(x_columns[c], x_rows[r])``, as the columns of a Gram matrix."""
        if self._kernel.precomputed:
            block = self._patterns[columns][:, rows]
            block = block.toarray() if sp.issparse(block) else np.asarray(block, np.float64)
            return np.ascontiguousarray(block.T)
        patterns = self._patterns
        return np.ascontiguousarray(self._kernel.values(patterns[columns], patterns[rows]).T)
