"""The training state of the kernel (dual) perceptron, its kernel values, and one epoch.

The dual form (the lecture notes' remarks on dual variables): the weight vector of a
perceptron started at zero is a combination of the training patterns, ``w = sum_j
alpha_j y_j phi(x_j)``, so the perceptron can learn the counts ``alpha`` and see the
patterns only through a kernel ``K(x_j, x) = phi(x_j) . phi(x)``.

- :class:`Kernel`: the kernel values, one pair at a time, identical in training
  and prediction (see :mod:`rosenblatt.engine.kernels.gram`);
- :class:`KernelTable`: the training kernel values laid out for the compiled
  epoch, the whole Gram matrix when it fits the cache budget, else a column
  per support vector, computed when it first errs;
- :class:`DualState`: the coefficients, their averaging accumulators, the
  support vectors in the order they joined, the presentation counts and every
  update, per dual problem (one per one-vs-rest class).

Training can go on with new samples (``partial_fit``): :meth:`DualState.extended`
lays the new samples out first and the support vectors learnt so far after
them, and only the new samples are presented. So the kernel values an epoch
reads are ``K(x_j, x_i)`` for every sample ``j`` and the presented ``i`` only,
and the table holds just those rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .._core.config import KERNEL_BLOCK_VALUES
from .kernels.bundles import Coefficients, DualRule, Problems, Table, Updates
from .orders import rng_from_state, rng_to_state
from .primal import readonly
from .votes import survival_counts

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike

__all__ = ["DualState", "Kernel", "KernelTable"]


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
        from .kernels.gram import KINDS, dense_block, sparse_block, squared_norms

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


class DualState:
    """What a kernel perceptron learns: per dual problem, the coefficients
    ``alpha_j y_j`` of every training sample and the record of every update.

    Parameters
    ----------
    coef, coef_acc : ndarray of shape (n_problems, n_samples)
        The coefficients, and ``sum t * delta`` over the updates (``t`` the
        presentations before each), so ``coef - coef_acc / n_seen`` is their
        average over every presentation (CIML Algorithm 7).
    sv : ndarray of int64, shape (n_problems, n_samples)
        ``sv[p, :n_sv[p]]``: problem ``p``'s support vectors in the order they
        joined, which is the order its scores are summed in.
    n_sv, n_seen : ndarray of int64, shape (n_problems,)
    updates : list, default=None
        Per problem, the ``(samples, deltas, times)`` blocks of its updates.
    index : ndarray of int64, shape (n_samples,), default=None
        Where each sample stands in the data trained on, every batch in the order
        given: the sample ``i`` of ``fit``'s data is ``i`` (the default,
        ``arange(n_samples)``); a state :meth:`extended` with new samples numbers
        them on from the highest index.

    Attributes
    ----------
    rng : RandomState, Generator or None
        Where ``partial_fit`` draws its orders from when ``random_state`` is a
        seed, so that training continued after saving and loading sees the
        orders it would have seen (None until the first ``partial_fit``;
        ``fit`` always starts from ``random_state``).

    Examples
    --------
    Two samples, one of them updated on, then three new samples:

    >>> state = DualState.allocate(1, 2)
    >>> state.coef[0, 1] = 1.0
    >>> state.sv[0, 0], state.n_sv[0] = 1, 1
    >>> grown = state.extended(3)
    >>> grown.index, grown.support(), grown.coef
    (array([2, 3, 4, 1]), array([3]), array([[0., 0., 0., 1.]]))
    """

    VERSION = 1

    def __init__(self, coef, coef_acc, sv, n_sv, n_seen, updates=None, index=None):
        self.coef, self.coef_acc, self.sv, self.n_sv, self.n_seen = (
            coef,
            coef_acc,
            sv,
            n_sv,
            n_seen,
        )
        # every update so far, per problem: (samples, deltas, times) blocks
        self._kept = updates if updates is not None else [[] for _ in range(coef.shape[0])]
        self.index = np.arange(coef.shape[1], dtype=np.int64) if index is None else index
        self.rng = None
        shape = coef.shape
        # one epoch's updates per problem (at most one per sample)
        self._upd_sample = np.zeros(shape, dtype=np.int64)
        self._upd_delta = np.zeros(shape)
        self._upd_time = np.zeros(shape, dtype=np.int64)
        self._n_upd = np.zeros(shape[0], dtype=np.int64)

    @classmethod
    def allocate(cls, n_problems: int, n_samples: int) -> DualState:
        shape = (n_problems, n_samples)
        return cls(
            np.zeros(shape),
            np.zeros(shape),
            np.zeros(shape, dtype=np.int64),
            np.zeros(n_problems, dtype=np.int64),
            np.zeros(n_problems, dtype=np.int64),
        )

    def extended(self, n_new: int) -> DualState:
        """A state over ``n_new`` new samples followed by this state's support vectors.

        The support vectors keep their coefficients, accumulators, presentation
        counts and update records (renumbered to their new places); the other
        samples, which the model does not depend on, are dropped, and the new
        samples start at zero. The new samples come first, so an epoch that
        presents only them reads kernel values for the first ``n_new`` rows only
        (see :class:`KernelTable`).
        """
        kept = self.support()
        n = n_new + kept.shape[0]
        place = np.full(self.n_samples, -1, dtype=np.int64)
        place[kept] = np.arange(n_new, n)
        coef, coef_acc = np.zeros((self.n_units, n)), np.zeros((self.n_units, n))
        coef[:, n_new:], coef_acc[:, n_new:] = self.coef[:, kept], self.coef_acc[:, kept]
        sv = np.zeros((self.n_units, n), dtype=np.int64)
        for p, count in enumerate(self.n_sv):
            sv[p, :count] = place[self.sv[p, :count]]
        samples, deltas, times, counts = self.updates()
        bounds = np.concatenate(([0], np.cumsum(counts)))
        updates = [
            [(place[samples[a:b]], deltas[a:b], times[a:b])] if b > a else []
            for a, b in zip(bounds, bounds[1:])
        ]
        start = int(self.index.max()) + 1 if self.n_samples else 0
        index = np.concatenate((np.arange(start, start + n_new), self.index[kept]))
        state = type(self)(coef, coef_acc, sv, self.n_sv.copy(), self.n_seen.copy(), updates, index)
        state.rng = self.rng
        return state

    @property
    def n_samples(self) -> int:
        return self.coef.shape[1]

    @property
    def n_units(self) -> int:
        return self.coef.shape[0]

    # ------------------------------------------------------------------ training
    def epoch(
        self,
        table: KernelTable,
        order: np.ndarray,
        Y: np.ndarray,
        sample_weight: np.ndarray,
        eta: float,
        s2: float,
        active: np.ndarray,
    ) -> tuple[np.ndarray, int]:
        """Present ``order`` once to every active problem; return (mistakes, presented)."""
        from .kernels.dual import dual_epoch

        # what the compiled epoch indexes by, checked once per epoch: presented rows i
        # (the table's first rows) index Y, sample_weight and the table; samples j < n
        n, presented = self.n_samples, table.table.shape[0]
        if (
            presented > n
            or Y.ndim != 2
            or Y.shape[0] != self.n_units
            or Y.shape[1] < presented
            or sample_weight.shape[0] < presented
            or table.slot_of.shape != (n,)
            or (order.size and (order.min() < 0 or order.max() >= presented))
        ):
            raise ValueError(f"targets, weights, kernel table or order do not fit {n} samples")
        mistakes = np.zeros(self.n_units, dtype=np.int64)
        problems = Problems(Y, sample_weight)
        state = Coefficients(self.coef, self.coef_acc, self.sv, self.n_sv, self.n_seen)
        updates = Updates(mistakes, self._upd_sample, self._upd_delta, self._upd_time, self._n_upd)
        rule = DualRule(float(eta), float(s2))
        for p in np.flatnonzero(active):
            self._n_upd[p] = 0
            pos = 0
            while True:
                pos = dual_epoch(
                    Table(table.table, table.slot_of), order, pos, p, problems, state, updates, rule
                )
                if pos == order.shape[0]:
                    break
                table.add(order[pos])  # on the fly: a new support vector needs its values
            k = self._n_upd[p]
            if k:
                self._kept[p].append(
                    (
                        self._upd_sample[p, :k].copy(),
                        self._upd_delta[p, :k].copy(),
                        self._upd_time[p, :k].copy(),
                    )
                )
        return mistakes, int(np.count_nonzero(sample_weight[order]))

    def credit(self, epochs_left: ArrayLike, presented: int) -> None:
        """Count presentations a converged run skips (see ``run_epochs``)."""
        self.n_seen += np.asarray(epochs_left, dtype=np.int64) * int(presented)

    # ------------------------------------------------------------------ read-off
    def support(self) -> np.ndarray:
        """Training samples updated on in any problem, in the order of ``index``
        (their order in the data)."""
        updated = np.flatnonzero(np.any(self.coef != 0.0, axis=0))
        return updated[np.argsort(self.index[updated], kind="stable")]

    def coefficients(self, averaged: bool = False) -> np.ndarray:
        """The last coefficients, or their average over every presentation."""
        if not averaged:
            return self.coef
        presented = np.maximum(self.n_seen, 1).astype(np.float64)
        return self.coef - self.coef_acc / presented[:, np.newaxis]

    def fitted(self, averaged: bool, s2: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """What a kernel perceptron trained on this state shows: ``(slots, attributes)``,
        ``slots`` the state's samples that are support vectors (in data order) and
        ``attributes`` its public fitted arrays but the support vectors' patterns
        (``support_``, ``dual_coef_``, ``intercept_``, ``n_presented_`` and the update
        record ``update_support_``, ``update_coef_``, ``update_time_``, ``update_ptr_``)."""
        slots = self.support()
        dual_coef = self.coefficients(averaged=averaged)[:, slots]
        position = np.full(self.n_samples, -1, dtype=np.int64)
        position[slots] = np.arange(slots.shape[0])
        samples, update_coef, update_time, counts = self.updates()
        return slots, {
            "support_": self.index[slots],
            "dual_coef_": dual_coef,
            "intercept_": s2 * dual_coef.sum(axis=1),
            "n_presented_": self.n_seen.copy(),
            "update_support_": position[samples],
            "update_coef_": update_coef,
            "update_time_": update_time,
            "update_ptr_": np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        }

    def updates(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
        """All updates, problem after problem: samples, deltas, times, and counts."""
        parts = [part for kept in self._kept for part in kept]
        counts = [sum(part[0].shape[0] for part in kept) for kept in self._kept]
        if not parts:
            empty = np.empty(0)
            return empty.astype(np.int64), empty, empty.astype(np.int64), counts
        samples, deltas, times = (np.concatenate(column) for column in zip(*parts))
        return samples, deltas, times, counts

    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``(meta, arrays)``: plain facts and arrays that :meth:`from_state` rebuilds."""
        samples, deltas, times, counts = self.updates()
        meta = {"kind": "dual", "version": self.VERSION}
        arrays = {
            "coef": self.coef,
            "coef_acc": self.coef_acc,
            "sv": self.sv,
            "n_sv": self.n_sv,
            "n_seen": self.n_seen,
            "update_sample": samples,
            "update_delta": deltas,
            "update_time": times,
            "update_count": np.asarray(counts, dtype=np.int64),
            "index": self.index,
        }
        if self.rng is not None:
            meta["rng"], rng_arrays = rng_to_state(self.rng)
            arrays.update(rng_arrays)
        return meta, arrays

    @classmethod
    def from_state(cls, meta: dict[str, Any], arrays: Mapping[str, Any]) -> DualState:
        """Rebuild a state from :meth:`to_state`'s output; ``ValueError`` naming the
        part that does not fit (wrong shape, kind or range)."""
        if meta.get("kind") != "dual" or meta.get("version") != cls.VERSION:
            raise ValueError(f"not a dual training state of version {cls.VERSION}")
        try:
            parts = {
                name: np.asarray(arrays[name])
                for name in (
                    "coef",
                    "coef_acc",
                    "sv",
                    "n_sv",
                    "n_seen",
                    "update_sample",
                    "update_delta",
                    "update_time",
                    "update_count",
                )
            }
        except KeyError as exc:
            raise ValueError(f"the training state lacks {exc}") from None
        coef = parts["coef"]
        if coef.ndim != 2 or coef.dtype != np.float64:
            raise ValueError(f"coef must be a 2-D float64 array; got {coef.dtype} {coef.shape}")
        n_problems, n_samples = coef.shape
        n_updates = parts["update_sample"].shape
        expected = {
            "coef_acc": ("f", coef.shape),
            "sv": ("i", coef.shape),
            "n_sv": ("i", (n_problems,)),
            "n_seen": ("i", (n_problems,)),
            "update_count": ("i", (n_problems,)),
            "update_sample": ("i", n_updates),
            "update_delta": ("f", n_updates),
            "update_time": ("i", n_updates),
        }
        for name, (kind, shape) in expected.items():
            part = parts[name]
            if part.shape != shape or part.dtype.kind != kind or (kind == "i" and np.any(part < 0)):
                raise ValueError(
                    f"{name} must be {'floats' if kind == 'f' else 'counts'} of "
                    f"shape {shape}; got {part.dtype} {part.shape}"
                )
        if (
            np.any(parts["sv"] >= n_samples)
            or np.any(parts["n_sv"] > n_samples)
            or np.any(parts["update_sample"] >= n_samples)
            or parts["update_count"].sum() != n_updates[0]
            or len(n_updates) != 1
        ):
            raise ValueError("the support vectors or the update record do not fit the samples")
        index = cls._index_from(arrays, n_samples)
        bounds = np.concatenate(([0], np.cumsum(parts["update_count"])))
        cls._check_consistent(parts, bounds)
        kept = [
            [
                (
                    parts["update_sample"][a:b].astype(np.int64),
                    parts["update_delta"][a:b],
                    parts["update_time"][a:b].astype(np.int64),
                )
            ]
            if b > a
            else []
            for a, b in zip(bounds, bounds[1:])
        ]
        state = cls(
            coef,
            parts["coef_acc"].astype(np.float64),
            parts["sv"].astype(np.int64),
            parts["n_sv"].astype(np.int64),
            parts["n_seen"].astype(np.int64),
            kept,
            index,
        )
        if meta.get("rng") is not None:
            state.rng = rng_from_state(meta["rng"], arrays)
        return state

    @staticmethod
    def _check_consistent(parts, bounds):
        """The facts the compiled epoch and the read-off rely on: finite coefficients;
        ``sv[p, :n_sv[p]]`` exactly problem ``p``'s samples of non-zero coefficient (the
        epoch appends a new one at ``n_sv[p]``); updates on support vectors only, at
        times in order and within the presentations counted."""
        coef, sv, n_sv = parts["coef"], parts["sv"], parts["n_sv"]
        for name in ("coef", "coef_acc", "update_delta"):
            if not np.all(np.isfinite(parts[name])):
                raise ValueError(f"{name} must hold finite floats")
        for p in range(coef.shape[0]):
            joined = sv[p, : n_sv[p]]
            support = np.flatnonzero(coef[p])
            if joined.shape != support.shape or not np.array_equal(np.sort(joined), support):
                raise ValueError(
                    f"problem {p}: its support vectors (sv, n_sv) are not the samples of "
                    "non-zero coefficient"
                )
            a, b = bounds[p], bounds[p + 1]
            times = parts["update_time"][a:b]
            if b > a and (np.any(np.diff(times) < 0) or times[-1] > parts["n_seen"][p]):
                raise ValueError(f"problem {p}: update times out of order")
            if np.any(coef[p, parts["update_sample"][a:b]] == 0.0):
                raise ValueError(f"problem {p}: an update on a sample that is not a support vector")

    @staticmethod
    def _index_from(arrays, n_samples):
        """The saved ``index``, or for a state saved before it existed (always by
        ``fit``) the samples' own numbers."""
        if "index" not in arrays:
            return np.arange(n_samples, dtype=np.int64)
        index = np.asarray(arrays["index"])
        if (
            index.shape != (n_samples,)
            or index.dtype.kind != "i"
            or np.any(index < 0)
            or np.unique(index).shape[0] != n_samples
        ):
            raise ValueError(
                f"index must be {n_samples} distinct counts; got {index.dtype} {index.shape}"
            )
        return index.astype(np.int64)


def decision_scores(
    K: np.ndarray,
    dual_coef: np.ndarray,
    order_ptr: np.ndarray,
    order_columns: np.ndarray,
    s2: float,
) -> np.ndarray:
    """``f(x_q) = sum_r coef[p, c_r] (K[q, c_r] + s2)`` summed in the order problem
    ``p``'s support vectors joined (``order_columns[order_ptr[p]:order_ptr[p + 1]]``),
    which is how training summed it: a training point gets the very score it had."""
    from .kernels.dual import ordered_scores

    n_support = K.shape[1]  # what the compiled loop indexes by
    if (
        dual_coef.ndim != 2
        or dual_coef.shape[1] != n_support
        or order_ptr.shape != (dual_coef.shape[0] + 1,)
        or np.any(np.diff(order_ptr) < 0)
        or order_ptr[0] < 0
        or order_ptr[-1] > order_columns.shape[0]
        or (order_columns.size and (order_columns.min() < 0 or order_columns.max() >= n_support))
    ):
        raise ValueError(f"dual coefficients or their order do not fit {n_support} support vectors")
    out = np.empty((K.shape[0], dual_coef.shape[0]))
    ordered_scores(np.ascontiguousarray(K), dual_coef, order_ptr, order_columns, s2, out)
    return out


def vote_scores(
    K: np.ndarray,
    update_ptr: np.ndarray,
    update_support: np.ndarray,
    update_coef: np.ndarray,
    update_time: np.ndarray,
    n_presented: np.ndarray,
    s2: float,
) -> np.ndarray:
    """The survival-weighted vote of every hypothesis of every problem, normalised."""
    from .kernels.dual import voted_scores

    K = np.ascontiguousarray(K)  # one compiled signature for every kernel
    n_updates = update_support.shape[0]  # what the compiled loop indexes by
    if (
        update_ptr.shape != (n_presented.shape[0] + 1,)
        or np.any(np.diff(update_ptr) < 0)
        or update_ptr[0] < 0
        or update_ptr[-1] > n_updates
        or update_coef.shape != (n_updates,)
        or update_time.shape != (n_updates,)
        or (n_updates and (update_support.min() < 0 or update_support.max() >= K.shape[1]))
    ):
        raise ValueError(f"an update record that does not fit {K.shape[1]} support vectors")
    votes = np.empty((K.shape[0], n_presented.shape[0]))
    out = np.empty(K.shape[0])
    for p in range(votes.shape[1]):
        part = slice(update_ptr[p], update_ptr[p + 1])
        weights = survival_counts(update_time[part], n_presented[p])
        voted_scores(K, update_support[part], update_coef[part], weights, s2, out)
        votes[:, p] = out / max(weights.sum(), 1.0)
    return votes
