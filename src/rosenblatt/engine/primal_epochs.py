"""The epochs of a linear perceptron's state: one at a time, or a run of them in one call.

:func:`present` is one epoch (:meth:`PrimalState.epoch
<rosenblatt.engine.primal.PrimalState.epoch>`): the patterns of a batch presented once, in
a given order, to the units still learning, by the compiled rule
(:func:`rosenblatt.engine.kernels.primal.primal_epoch`), one-vs-rest neurons split over
threads where asked. It is the epoch driver's step.

:func:`run_epochs` is a run of epochs in one compiled call (:meth:`PrimalState.epochs
<rosenblatt.engine.primal.PrimalState.epochs>`,
:func:`rosenblatt.engine.kernels.primal.primal_epochs`): the orders drawn, the units
stopped and the stop rule applied in there, as the driver would between epochs. A fit
whose epochs need nothing in Python between them takes it: about 0.25 ms of Python
around every epoch is then gone, which on small data was most of a fit.

Both build the compiled loop's bundles here, once, and read its record of updates into
the voted perceptron's :class:`~rosenblatt.engine.votes.VoteRecord` the same way.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from .driver import EpochCount, Epochs
from .kernels.bundles import (
    MULTINOMIAL,
    ONE_VS_REST,
    SINGLE,
    STEPS,
    Draws,
    Limits,
    Progress,
    Record,
    Rule,
    Schedule,
    Scratch,
    Tally,
    Targets,
    Weights,
)
from .kernels.stop_rule import OVERFLOWED
from .overflow import refuse_overflow

if TYPE_CHECKING:  # pragma: no cover
    from .primal import Batch, PrimalRule, PrimalState

__all__ = ["RECORD_ENTRIES", "RUN_EPOCHS", "check_batch", "present", "run_epochs"]

_INDEX = np.int64
_EMPTY_FLOAT = np.empty(0)

#: The most epochs one compiled call runs (its history and the order of its calls are
#: Python's part of a run: one short step per this many epochs)
RUN_EPOCHS = 4096
#: The most updates a call keeps for the voted perceptron (per array of the record: 32 MiB
#: of int64): a run over many rows takes fewer epochs a call
RECORD_ENTRIES = 1 << 22


def present(
    state: PrimalState,
    batch: Batch,
    rule: PrimalRule,
    schedule: tuple,
    active: np.ndarray,
    workers: ThreadPoolExecutor | None = None,
    activation: np.ndarray | None = None,
) -> EpochCount:
    """Present ``batch`` once, in ``schedule``'s order, to the ``active`` units of ``state``
    (:meth:`PrimalState.epoch <rosenblatt.engine.primal.PrimalState.epoch>`).

    Parameters
    ----------
    state : PrimalState
        Trained in place.
    batch : Batch
    rule : PrimalRule
    schedule : tuple (order, stream, lookahead)
        From :class:`~rosenblatt.engine.orders.EpochOrders`.
    active : ndarray of bool, shape (n_units,)
    workers : ThreadPoolExecutor or None
        From :func:`~rosenblatt.engine.primal.worker_pool`: trains groups of one-vs-rest
        neurons beside the calling thread, which trains the first group.
    activation : ndarray of float64 or None
        For a trace of a single neuron: gets ``y (w . x + w0 s)`` of every
        presentation, in order.

    Returns
    -------
    EpochCount
        The mistakes of each unit (int64, shape (n_units,)), the patterns
        presented, each unit's summed weight of its mistakes and the summed
        weight of the presentations (the sample weights, which hold the class
        weights: the factors of the update).
    """
    schedule = Schedule(*schedule)
    check_batch(state, batch, schedule.order)
    if state.multinomial:
        count, updates = _train_rows(
            state, batch, rule, schedule, np.arange(state.n_rows), shared=True
        )
    else:
        trained = np.flatnonzero(active)
        threads = 1 if workers is None else min(rule.threads, trained.shape[0])
        if threads <= 1 or workers is None:  # (None means one thread; for mypy)
            count, updates = _train_rows(
                state, batch, rule, schedule, trained, shared=True, activation=activation
            )
        else:
            # neurons are independent: each thread trains a group of them (nogil loop)
            def train(group):
                return _train_rows(state, batch, rule, schedule, group, shared=False)

            first, *rest = np.array_split(trained, threads)
            running = [workers.submit(train, group) for group in rest]
            results = [train(first)] + [future.result() for future in running]
            counts = [result[0] for result in results]
            updates = [update for result in results for update in result[1]]
            # every group presents the same patterns: its presentations are the epoch's
            count = counts[0]._replace(
                mistakes=sum(c.mistakes for c in counts),
                mistake_weight=sum(c.mistake_weight for c in counts),
            )
    _keep_votes(state, batch, rule, updates)
    return count


def check_batch(state: PrimalState, batch: Batch, order: np.ndarray) -> None:
    """What the compiled epoch relies on and cannot check itself: the rows have the
    state's features, the class indices and the ``order`` stay inside their arrays."""
    n = batch.n_samples
    if batch.X.shape[1] != state.n_features or batch.target.shape[:1] != (n,):
        raise ValueError(
            f"a batch of {n} rows of {batch.X.shape[1]} features does not fit a state of "
            f"{state.n_features} features"
        )
    classes = max(state.n_rows, 2)
    order = np.asarray(order)
    if batch.multilabel:  # row s reads column s: every row needs its column
        if state.multinomial or state.n_rows < 2 or batch.target.shape != (n, state.n_rows):
            raise ValueError(
                f"a label matrix of shape {batch.target.shape} does not fit a state of "
                f"{state.n_rows} {'multinomial ' * state.multinomial}rows: a layer of "
                "independent neurons has one row per label"
            )
    elif batch.target.ndim != 1:
        raise ValueError(f"class indices of shape {batch.target.shape}")
    elif n and (batch.target.min() < 0 or batch.target.max() >= classes):
        raise ValueError(f"class indices outside 0..{classes - 1}")
    if order.size and (order.min() < 0 or order.max() >= n):
        raise ValueError(f"an epoch order outside the batch's {n} rows")
    if batch.sample_weight.shape != (n,):
        raise ValueError(f"{batch.sample_weight.shape[0]} sample weights for {n} rows")


def _bundles(state, batch, rule, n_rows, positive):
    """The compiled loop's targets, rule, zeroed scratch and tally for ``n_rows`` state rows
    (answering +1 for the classes ``positive``)."""
    targets = Targets(batch.target, positive, batch.sample_weight)
    scalars = Rule(
        float(rule.eta),
        float(rule.bias_input),
        bool(rule.batch),
        state.averaged,
        STEPS[rule.step],
        float(rule.C),
    )
    scratch = Scratch(
        np.zeros((n_rows, state.n_features if rule.batch else 0), dtype=state.dtype),
        np.zeros(n_rows),
        np.zeros(n_rows),
        np.zeros(max(n_rows, 2), dtype=_INDEX),
        np.zeros(max(n_rows, 2)),
    )
    tally = Tally(
        np.zeros(n_rows, dtype=np.int64), np.zeros(n_rows), np.zeros(1), np.zeros(1, _INDEX)
    )
    return targets, scalars, scratch, tally


def _record(epochs, n_rows, n_samples, multinomial, activation=None):
    """Where the compiled loop writes the updates: ``n_samples`` entries per state row and
    epoch; ``epochs`` None for one epoch (``n_rec`` one count per row), else a run's
    (``n_rec`` one row per epoch)."""
    size = n_samples * n_rows * (1 if epochs is None else epochs)
    return Record(
        np.zeros(n_rows if epochs is None else (epochs, n_rows), dtype=_INDEX),
        np.empty(size, dtype=_INDEX),
        np.empty(size),
        np.empty(size, dtype=_INDEX),
        np.empty(size if multinomial else 0, dtype=_INDEX),
        np.empty(size if multinomial else 0, dtype=_INDEX),
        _EMPTY_FLOAT if activation is None else activation,
    )


def _updates(record, n_rec, start, n_samples, units, slots, multinomial):
    """One epoch's updates in ``record`` (its part from ``start`` on, its counts ``n_rec``):
    ``(unit, samples, coef, time)`` for each of ``units`` (trained as state rows
    ``slots``), or the multinomial model's one entry with the true and rival classes."""
    if multinomial:
        part = slice(start, start + n_rec[0])
        return [
            (0, record.sample[part], record.coef[part], record.time[part])
            + (record.true[part], record.pred[part])
        ]
    found = []
    for k, s in zip(units, slots):
        part = slice(start + s * n_samples, start + s * n_samples + n_rec[s])
        found.append((k, record.sample[part], record.coef[part], record.time[part]))
    return found


def _keep_votes(state, batch, rule, updates):
    """Add an epoch's updates to the voted perceptron's record (none without one)."""
    if state.votes is None:
        return
    state.votes.bias_input = rule.bias_input
    for k, samples, *columns in updates:
        state.votes.add(k, batch, samples, *columns)


def _refuse_overflow(tally: Tally, batch: Batch, rule: PrimalRule) -> None:
    """Refuse an epoch that met scores beyond the float range (``tally.overflow`` counts
    them), naming what to change."""
    fix: dict[str, Any] = rule.fix()
    refuse_overflow(f"{tally.overflow[0]} score(s) w . x + b", X=batch.X, **fix)


def _layout(state, n_slots):
    if state.multinomial:
        return MULTINOMIAL
    return SINGLE if n_slots == 1 else ONE_VS_REST


def _train_rows(state, batch, rule, schedule, rows, shared, activation=None):
    """One epoch of the state ``rows``: what it counted (an :class:`EpochCount`, per
    unit) and the recorded updates.

    ``shared=False`` trains private copies of the rows and writes them back at
    the end: threads updating neighbouring rows of shared arrays would keep
    stealing each other's cache lines (false sharing).
    """
    parts = (state.W, state.w0, state.U, state.U0, state.counts)
    positive = state.positive()
    if shared:
        slots = rows
    else:
        slots = np.arange(rows.shape[0])
        parts = tuple(part[rows] if part.shape[0] else part for part in parts)
        positive = positive[rows]
    weights = Weights(*parts)
    n = schedule.order.shape[0]
    n_rows = weights.W.shape[0]
    recording = state.votes is not None
    record = None  # no record: the loop is compiled without the recording code
    if recording or activation is not None:
        record = _record(None, n_rows, n, state.multinomial, activation)
    from .kernels.loader import compiled_kernel

    primal_epoch = compiled_kernel("primal.primal_epoch")

    targets, scalars, scratch, tally = _bundles(state, batch, rule, n_rows, positive)
    presented = primal_epoch(
        batch.rows,
        targets,
        schedule,
        weights,
        record,
        scalars,
        scratch,
        np.ascontiguousarray(slots, dtype=_INDEX),
        tally,
        _layout(state, slots.shape[0]),
    )
    if tally.overflow[0]:
        _refuse_overflow(tally, batch, rule)
    presented_weight = float(tally.presented_weight[0])
    if not shared:
        for own, part in zip(parts, (state.W, state.w0, state.U, state.U0, state.counts)):
            if part.shape[0]:
                part[rows] = own
    updates = []
    if recording:
        updates = _updates(record, record.n_rec, 0, n, rows, slots, state.multinomial)
    if state.multinomial:
        count = EpochCount(
            tally.mistakes[:1], presented, tally.mistake_weight[:1], presented_weight
        )
        return count, updates
    by_unit = np.zeros(state.n_rows, dtype=np.int64)
    by_unit[rows] = tally.mistakes[slots]
    weight_by_unit = np.zeros(state.n_rows)
    weight_by_unit[rows] = tally.mistake_weight[slots]
    return EpochCount(by_unit, presented, weight_by_unit, presented_weight), updates


def run_epochs(
    state: PrimalState,
    batch: Batch,
    rule: PrimalRule,
    draws: Draws,
    progress: Progress,
    limits: Limits,
    most: int,
) -> Epochs:
    """Up to ``most`` epochs of ``batch`` in one compiled call, each followed by the stop
    rule (:meth:`PrimalState.epochs <rosenblatt.engine.primal.PrimalState.epochs>`): what
    :func:`present` and the epoch driver do epoch after epoch, with the same results.
    Fewer than ``most``: at most :data:`RUN_EPOCHS`, and for the voted perceptron as many
    as :data:`RECORD_ENTRIES` updates hold.

    Parameters
    ----------
    state : PrimalState
        Trained in place, one epoch after another.
    batch : Batch
        In memory, every epoch's patterns.
    rule : PrimalRule
        One thread (the one-vs-rest neurons train together).
    draws : Draws
        Each epoch's order: ``arange(n)``, shuffled from a random source's bit
        generator unless ``next_uint32`` is 0 (:func:`.orders.compiled_orders`).
    progress : Progress
        Where the run stands (the units still learning, the epochs each trained,
        the plateau), updated after every epoch.
    limits : Limits
        What the stop rule watches.
    most : int
        Epochs left to the run.

    Returns
    -------
    Epochs
        The mistakes of each epoch run, the patterns the last presented, and how
        the run stands.

    Raises
    ------
    rosenblatt.exceptions.NumericOverflowError
        As an epoch of :func:`present` does, once the epochs before are kept.
    """
    from .kernels.loader import compiled_kernel

    primal_epochs = compiled_kernel("primal.primal_epochs")

    check_batch(state, batch, draws.order[:0])
    n, n_rows = batch.n_samples, state.n_rows
    epochs = min(most, RUN_EPOCHS)
    record = None
    if state.votes is not None:
        epochs = max(1, min(epochs, RECORD_ENTRIES // max(1, n * n_rows)))
        record = _record(epochs, n_rows, n, state.multinomial)
    history = np.zeros(epochs, dtype=np.int64)
    targets, scalars, scratch, tally = _bundles(state, batch, rule, n_rows, state.positive())
    ran, presented, status = primal_epochs(
        batch.rows,
        targets,
        draws,
        Weights(state.W, state.w0, state.U, state.U0, state.counts),
        record,
        scalars,
        scratch,
        np.zeros(n_rows, dtype=_INDEX),
        tally,
        _layout(state, n_rows),
        progress,
        limits,
        history,
    )
    if record is not None:
        rows = np.arange(n_rows)
        for epoch in range(ran):
            start = epoch * n * n_rows
            found = _updates(record, record.n_rec[epoch], start, n, rows, rows, state.multinomial)
            _keep_votes(state, batch, rule, found)
    if status == OVERFLOWED:
        _refuse_overflow(tally, batch, rule)
    return Epochs(history[:ran], int(presented), int(status))
