"""The training state of the kernel (dual) perceptron, its kernel values, and one epoch.

The dual form (the lecture notes' remarks on dual variables): the weight vector of a
perceptron started at zero is a combination of the training patterns, ``w = sum_j
alpha_j y_j phi(x_j)``, so the perceptron can learn the counts ``alpha`` and see the
patterns only through a kernel ``K(x_j, x) = phi(x_j) . phi(x)``.

- :class:`Kernel` and :class:`KernelTable` (:mod:`.kernel_values`): the kernel
  values, and the training kernel values laid out for the compiled epoch;
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

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.random_states import rng_from_state, rng_to_state
from .budget import BudgetState
from .driver import EpochCount
from .kernel_values import (  # noqa: F401 (Kernel, KernelTable, as_float64: re-exported)
    BlockTable,
    Kernel,
    KernelTable,
    as_float64,
)
from .kernels.bundles import Coefficients, DualRule, Problems, Updates
from .overflow import check_finite, check_scores, check_vote_range, refuse_overflow
from .primal import readonly
from .targets import fixed_classes_of
from .votes import survival_counts

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike

__all__ = ["DualState", "Kernel", "KernelTable", "recorded_presentations"]

_recorders = threading.local()


@contextmanager
def recorded_presentations() -> Iterator[list[tuple[np.ndarray, np.ndarray]]]:
    """Keep, for every presentation of every dual epoch run in this thread while the
    block runs, ``y f(x)`` and every coefficient after it: what the engine computed,
    for a consumer to show (the playground's kernel rows, its support set under a
    budget) instead of recomputing it. Meant for small runs: a presentation keeps
    ``n_samples`` coefficients per problem.

    Yields
    ------
    list of (ndarray, ndarray)
        One pair per epoch, of shapes (n_problems, len(order)) and (n_problems,
        len(order), n_samples), in the order the epochs ran: position ``pos`` holds the
        presentation of ``order[pos]``, its ``y f(x)`` and the coefficients ``alpha_j
        y_j`` after it (NaN for a problem that sat the epoch out; a zero-weight sample
        has no ``y f(x)``).

    Examples
    --------
    >>> from rosenblatt import KernelPerceptron
    >>> with recorded_presentations() as epochs:
    ...     _ = KernelPerceptron(kernel="linear", shuffle=False).fit([[1.0], [-1.0]], [1, 0])
    >>> [(activation + 0.0).tolist() for activation, _ in epochs]  # + 0.0: no -0.0
    [[[0.0, 0.0]], [[2.0, 2.0]]]
    >>> epochs[0][1][0].tolist()  # both samples erred in the first epoch
    [[1.0, 0.0], [1.0, -1.0]]
    """
    previous = getattr(_recorders, "presentations", None)
    epochs: list[tuple[np.ndarray, np.ndarray]] = []
    _recorders.presentations = epochs
    try:
        yield epochs
    finally:
        _recorders.presentations = previous


class DualState:
    """What a kernel perceptron learns: per dual problem, the coefficients
    ``alpha_j y_j`` of every training sample and the record of every update.

    Parameters
    ----------
    coef, coef_acc : ndarray of shape (n_problems, n_samples)
        The coefficients, and ``sum c * delta`` over the updates (``c`` the notes'
        example counter, 1-based: the presentations before each, plus one), so
        ``coef - coef_acc / (n_seen + 1)`` is the average of the coefficients
        ``alpha_0 .. alpha_T``, the initial (zero) ones and those after every
        presentation (CIML Algorithm 7).
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
    fixed_classes : bool
        Whether the classes were given up front (``partial_fit(classes=...)``), so that
        a label outside them is refused; else a new label adds a dual problem
        (:meth:`grow`).

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

    #: 2: ``coef_acc`` counts from 1, as Algorithm 7's ``c``; version 1 counted from 0
    #: (an average over ``alpha_1 .. alpha_T``) and is not read
    VERSION = 2

    def __init__(self, coef, coef_acc, sv, n_sv, n_seen, updates=None, index=None, budget=None):
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
        # how the support set is bounded (None: the kernel perceptron keeps every mistake)
        self.budget = budget if budget is not None else BudgetState(None, 2**62, coef.shape[0])
        self.fixed_classes = False
        self._scratch()

    def _scratch(self) -> None:
        """One epoch's updates per problem (at most one per sample), reused every epoch."""
        shape = self.coef.shape
        self._upd_sample = np.zeros(shape, dtype=np.int64)
        self._upd_delta = np.zeros(shape)
        self._upd_time = np.zeros(shape, dtype=np.int64)
        self._n_upd = np.zeros(shape[0], dtype=np.int64)

    @classmethod
    def allocate(
        cls, n_problems: int, n_samples: int, budget: BudgetState | None = None
    ) -> DualState:
        shape = (n_problems, n_samples)
        return cls(
            np.zeros(shape),
            np.zeros(shape),
            np.zeros(shape, dtype=np.int64),
            np.zeros(n_problems, dtype=np.int64),
            np.zeros(n_problems, dtype=np.int64),
            budget=budget,
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
        state = type(self)(
            coef,
            coef_acc,
            sv,
            self.n_sv.copy(),
            self.n_seen.copy(),
            updates,
            index,
            self.budget.copy(),
        )
        state.rng = self.rng
        state.fixed_classes = self.fixed_classes
        return state

    def grow(self, growth: Any) -> None:
        """Take the dual problems of classes that joined (:meth:`TargetCoding.grow
        <rosenblatt.engine.targets.TargetCoding.grow>`), in place: a new class's problem
        starts at zero (no coefficient, support vector, presentation or update), as a
        problem held at zero until now; an old one keeps all of it (a grown binary
        problem's negation, its coefficients and updates negated: the problem "first class
        against the rest" learns exactly those on the same presentations)."""
        rows = growth.rows
        self.coef, self.coef_acc = rows(self.coef), rows(self.coef_acc)
        self.sv, self.n_sv, self.n_seen = rows(self.sv), rows(self.n_sv), rows(self.n_seen)
        self._kept = [
            []
            if k < 0
            else [
                (samples, -deltas + 0.0 if sign < 0 else deltas, times)
                for samples, deltas, times in self._kept[k]
            ]
            for k, sign in zip(growth.source.tolist(), growth.sign.tolist())
        ]
        self.budget.grow_problems(growth)
        self._scratch()

    @property
    def n_samples(self) -> int:
        return self.coef.shape[1]

    @property
    def n_units(self) -> int:
        return self.coef.shape[0]

    # ------------------------------------------------------------------ training
    def epoch(
        self,
        table: KernelTable | BlockTable,
        order: np.ndarray,
        Y: np.ndarray,
        sample_weight: np.ndarray,
        eta: float,
        s2: float,
        active: np.ndarray,
        draws: np.ndarray | None = None,
    ) -> EpochCount:
        """Present ``order`` once to every active problem; return what it counted: each
        problem's mistakes and their summed sample weight, the samples presented and
        their summed weight (the sample weights hold the class weights: the factors of
        the update).

        ``table``: a :class:`KernelTable` (a column per support vector, over every
        presented sample) or, under a budget, a :class:`BlockTable` (the support
        vectors against a block of presentations at a time). ``draws``: a uniform
        number in [0, 1) per position of ``order``, where the ``"random"`` budget
        policy draws the support vectors it evicts."""
        from .kernels.loader import compiled_kernel

        dual_epoch = compiled_kernel("dual.dual_epoch")

        # what the compiled epoch indexes by, checked once per epoch: presented samples i
        # (the table's rows) index Y, sample_weight and the table; samples j < n
        n, presented = self.n_samples, table.n_rows
        forgetron_rows = isinstance(table, BlockTable) and table.support_rows
        if (
            presented > n
            or Y.ndim != 2
            or Y.shape[0] != self.n_units
            or Y.shape[1] < presented
            or sample_weight.shape[0] < presented
            or table.slot_of.shape != (n,)
            or (order.size and (order.min() < 0 or order.max() >= presented))
            # the Forgetron reads f at its oldest support vector: it needs its row
            or (self.budget.policy == "forgetron" and presented != n and not forgetron_rows)
        ):
            raise ValueError(f"targets, weights, kernel table or order do not fit {n} samples")
        if draws is None or draws.shape != order.shape:
            if self.budget.policy == "random":
                raise ValueError("the random budget policy needs a draw per presentation")
            draws = np.zeros(order.shape[0])
        mistakes = np.zeros(self.n_units, dtype=np.int64)
        mistake_weight, presented_weight = np.zeros(self.n_units), np.zeros(self.n_units)
        problems = Problems(Y, sample_weight)
        state = Coefficients(self.coef, self.coef_acc, self.sv, self.n_sv, self.n_seen)
        recorder = getattr(_recorders, "presentations", None)
        width = order.shape[0] if recorder is not None else 0
        activation = np.full((self.n_units, width), np.nan)  # NaN: not presented
        history = np.full((self.n_units, width, self.n_samples if width else 0), np.nan)
        updates = Updates(
            mistakes,
            mistake_weight,
            presented_weight,
            self._upd_sample,
            self._upd_delta,
            self._upd_time,
            self._n_upd,
            activation,
            history,
            np.zeros(self.n_units, dtype=np.int64),
        )
        rule = DualRule(float(eta), float(s2))
        for p in np.flatnonzero(active):
            self._n_upd[p] = 0
            pos = 0
            budget = self.budget.bundle(draws)
            while pos < order.shape[0]:
                view = table.view(order, pos, self.sv[p, : self.n_sv[p]])
                while pos < view.until:
                    pos = dual_epoch(view, order, pos, p, problems, state, updates, rule, budget)
                    if pos < view.until:  # room made: a new table column or a larger K^-1
                        self._make_room(table, order[pos])
                        view = table.view(order, pos, self.sv[p, : self.n_sv[p]])
                        budget = self.budget.bundle(draws)
            k = self._n_upd[p]
            if k:
                self._kept[p].append(
                    (
                        self._upd_sample[p, :k].copy(),
                        self._upd_delta[p, :k].copy(),
                        self._upd_time[p, :k].copy(),
                    )
                )
            if self.budget.evicts:  # the record keeps the updates of the support vectors
                self._forget_evicted(p)
        overflowed = int(updates.overflow.sum())
        if overflowed:
            refuse_overflow(
                f"{overflowed} score(s) f(x) = sum_j alpha_j y_j K(x_j, x)", eta=eta, kernel=True
            )
        if recorder is not None:
            recorder.append((activation, history))
        # every problem presents the same samples: the first active one's weight is the epoch's
        trained = np.flatnonzero(active)
        weighed = float(presented_weight[trained[0]]) if trained.size else 0.0
        return EpochCount(
            mistakes, int(np.count_nonzero(sample_weight[order])), mistake_weight, weighed
        )

    def _make_room(self, table: KernelTable | BlockTable, i: int) -> None:
        """What the compiled epoch stopped for at sample ``i``: its kernel values (on
        the fly), or room in the projection's inverse kernel matrix."""
        if table.slot_of[i] >= 0:
            self.budget.grow(self.n_samples)
        else:
            table.add(i)  # on the fly: a new support vector needs its values

    def _forget_evicted(self, p: Any) -> None:
        """Drop problem ``p``'s updates on samples a budget evicted."""
        kept = []
        for samples, deltas, times in self._kept[p]:
            stays = self.coef[p, samples] != 0.0
            if stays.any():
                kept.append((samples[stays], deltas[stays], times[stays]))
        self._kept[p] = kept

    def credit(self, epochs_left: ArrayLike, presented: int) -> None:
        """Count presentations a converged run skips (see :func:`.driver.train`)."""
        self.n_seen += np.asarray(epochs_left, dtype=np.int64) * int(presented)

    def check_finite(self, **context: Any) -> None:
        """Refuse coefficients or averaging sums beyond the float range
        (:func:`.overflow.check_finite`; ``context`` names the learning rate)."""
        check_finite({"dual coefficients": self.coef, "averaging sums": self.coef_acc}, **context)

    # ------------------------------------------------------------------ read-off
    def support(self) -> np.ndarray:
        """Training samples updated on in any problem, in the order of ``index``
        (their order in the data)."""
        updated = np.flatnonzero(np.any(self.coef != 0.0, axis=0))
        return updated[np.argsort(self.index[updated], kind="stable")]

    def coefficients(self, averaged: bool = False) -> np.ndarray:
        """The last coefficients, or the average of ``alpha_0 .. alpha_T`` (CIML
        Algorithm 7's ``w - u / c``, ``c = T + 1``)."""
        if not averaged:
            return self.coef
        c = (self.n_seen + 1).astype(np.float64)  # Algorithm 7's counter: T + 1
        return self.coef - self.coef_acc / c[:, np.newaxis]

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
        if self.budget.policy == "project":
            # a projection may cancel a coefficient to exactly zero: its sample then
            # leaves the support, and its updates with it
            keep = position[samples] >= 0
            bounds = np.concatenate(([0], np.cumsum(counts)))
            counts = [int(keep[a:b].sum()) for a, b in zip(bounds, bounds[1:])]
            samples, update_coef, update_time = samples[keep], update_coef[keep], update_time[keep]
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
        meta: dict[str, Any] = {"kind": "dual", "version": self.VERSION}
        if self.fixed_classes:  # absent: classes that grow (every file from before it)
            meta["fixed_classes"] = True
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
        if self.budget.policy is not None:
            meta["budget"], budget_arrays = self.budget.to_state()
            arrays.update(budget_arrays)
        return meta, arrays

    @classmethod
    def from_state(cls, meta: dict[str, Any], arrays: Mapping[str, Any]) -> DualState:
        """Rebuild a state from :meth:`to_state`'s output; ``ValueError`` naming the
        part that does not fit (wrong shape, kind or range)."""
        if meta.get("kind") == "dual" and meta.get("version") == 1:
            raise ValueError(
                "a kernel perceptron's training state of version 1, whose averaging sums "
                "count from 0; this rosenblatt's count from 1, as CIML Algorithm 7 does "
                "(version 2): train the model again"
            )
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
        cls._check_consistent(parts, bounds, meta.get("budget") is not None)
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
        budget = None
        if meta.get("budget") is not None:
            budget = BudgetState.from_state(meta["budget"], arrays, n_problems, parts["n_sv"])
        state = cls(
            coef,
            parts["coef_acc"].astype(np.float64),
            parts["sv"].astype(np.int64),
            parts["n_sv"].astype(np.int64),
            parts["n_seen"].astype(np.int64),
            kept,
            index,
            budget,
        )
        if meta.get("rng") is not None:
            state.rng = rng_from_state(meta["rng"], arrays)
        state.fixed_classes = fixed_classes_of(meta)
        return state

    @staticmethod
    def _check_consistent(parts, bounds, budgeted=False):
        """The facts the compiled epoch and the read-off rely on: finite coefficients;
        ``sv[p, :n_sv[p]]`` exactly problem ``p``'s samples of non-zero coefficient (the
        epoch appends a new one at ``n_sv[p]``; under a projection budget, distinct
        samples among which are all those of non-zero coefficient); updates on support
        vectors only, at times in order and within the presentations counted."""
        coef, sv, n_sv = parts["coef"], parts["sv"], parts["n_sv"]
        for name in ("coef", "coef_acc", "update_delta"):
            if not np.all(np.isfinite(parts[name])):
                raise ValueError(f"{name} must hold finite floats")
        for p in range(coef.shape[0]):
            joined = sv[p, : n_sv[p]]
            support = np.flatnonzero(coef[p])
            if budgeted:
                fits = np.unique(joined).shape == joined.shape and np.isin(support, joined).all()
            else:
                fits = joined.shape == support.shape and np.array_equal(np.sort(joined), support)
            if not fits:
                raise ValueError(
                    f"problem {p}: its support vectors (sv, n_sv) are not the samples of "
                    "non-zero coefficient"
                )
            a, b = bounds[p], bounds[p + 1]
            times = parts["update_time"][a:b]
            if b > a and (np.any(np.diff(times) < 0) or times[-1] > parts["n_seen"][p]):
                raise ValueError(f"problem {p}: update times out of order")
            updated = parts["update_sample"][a:b]
            if not np.isin(updated, joined).all() or (
                not budgeted and np.any(coef[p, updated] == 0.0)
            ):
                raise ValueError(f"problem {p}: an update on a sample that is not a support vector")
            if not budgeted:  # a budget's evictions and projections change them unrecorded
                _check_sums(p, updated, parts["update_delta"][a:b], times, coef, parts["coef_acc"])

    @staticmethod
    def _index_from(arrays, n_samples):
        """The saved ``index``: the samples' distinct counts."""
        if "index" not in arrays:
            raise ValueError("the state has no index of its samples")
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


def _check_sums(p, samples, deltas, times, coef, coef_acc):
    """Without a budget, problem ``p``'s update record adds up to its coefficients and
    their averaging sums exactly: each is the kernel's running sum in the record's order
    (``coef[i] += delta``, ``coef_acc[i] += (t + 1) delta``), which ``np.bincount`` adds
    in the same order. The voted perceptron reads its hypotheses off the record, so a
    record that does not add up would vote for weights the model never had."""
    n = coef.shape[1]
    if not (
        np.array_equal(np.bincount(samples, deltas, n), coef[p])
        and np.array_equal(np.bincount(samples, (times + 1.0) * deltas, n), coef_acc[p])
    ):
        raise ValueError(
            f"problem {p}: its update record (update_sample, update_delta, update_time) does "
            "not add up to its coefficients"
        )


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
    from .kernels.loader import compiled_kernel

    ordered_scores = compiled_kernel("dual.ordered_scores")

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
    # C-ordered, read-only operands: one compiled signature, whatever order the coefficients
    # came in and whether a model file's memory map holds them
    K, dual_coef = (readonly(np.ascontiguousarray(a)) for a in (K, dual_coef))
    ordered_scores(K, dual_coef, order_ptr, order_columns, s2, out)
    return check_scores(out)


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
    from .kernels.loader import compiled_kernel

    voted_scores = compiled_kernel("dual.voted_scores")

    K = np.ascontiguousarray(K)  # one compiled signature for every kernel
    check_vote_range(K, update_coef, s2)
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
    # read-only operands: one compiled signature, whether or not a memory map holds the record
    support, coef = (readonly(np.ascontiguousarray(a)) for a in (update_support, update_coef))
    for p in range(votes.shape[1]):
        part = slice(update_ptr[p], update_ptr[p + 1])
        weights = survival_counts(update_time[part], n_presented[p])
        voted_scores(K, support[part], coef[part], weights, s2, out)
        votes[:, p] = out / max(weights.sum(), 1.0)
    return votes
