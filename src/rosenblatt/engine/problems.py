"""The training problems :func:`~rosenblatt.engine.driver.train` runs: what one epoch presents.

- :class:`PrimalProblem`: patterns (one in-memory :class:`~rosenblatt.engine.primal.Batch`,
  or, through :class:`BatchEpochs`, each batch an epoch reads) presented to a
  :class:`~rosenblatt.engine.primal.PrimalState` by a
  :class:`~rosenblatt.engine.primal.PrimalRule`, in an order from the fit's random source;
- :class:`DualProblem`: the samples of a :class:`~rosenblatt.engine.dual.DualState`,
  read through a kernel table, presented by the dual rule;
- :class:`BatchEpochs`: epochs that arrive in batches (``fit_batches``, streams), each
  presented by the learner's "present one batch" function; the one place an epoch's count
  is kept between batches (``RunState.partial``, what a checkpoint saves) and an epoch
  resumed inside goes on from it.

A problem holds what a run needs while it lasts (the threads of one-vs-rest neurons, the
order source that makes the next epoch's order while one trains): ``running`` opens and
closes them. An :class:`EpochLog` keeps what the step-by-step trace shows of every epoch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.sparse import is_sparse
from .driver import EpochCount, Epochs, Problem, RunState
from .kernels.bundles import Limits, Progress
from .orders import (
    CompiledOrders,
    EpochOrders,
    compiled_orders,
    epoch_order,
    random_source,
    resolve_mode,
)
from .primal import Batch, PrimalRule, PrimalState, worker_pool

if TYPE_CHECKING:  # pragma: no cover
    from .dual import DualState

__all__ = ["NO_BATCH", "BatchEpochs", "DualProblem", "EpochLog", "PrimalProblem", "order_source"]

#: what training on batches says when the first epoch has none
NO_BATCH = "fit_batches: batches() gave no batch; give at least one (X, y) per epoch."


@dataclass
class EpochLog:
    """What a :class:`PrimalProblem` keeps of every epoch when asked (the trace's table):
    the order, the activation ``y (w . x + w0 s)`` of every presentation, and the weights
    ``(W, w0)`` after the epoch (the summed update of batch mode shows there)."""

    orders: list = field(default_factory=list)
    activations: list = field(default_factory=list)
    weights: list = field(default_factory=list)


class PrimalProblem:
    """Patterns presented to a linear perceptron's state, epoch after epoch.

    Parameters
    ----------
    state : PrimalState
        Trained in place.
    rule : PrimalRule
    data : Batch or None
        The patterns in memory (one order source serves the whole run: in block mode
        the next epoch's order is made while one trains), or None for a problem whose
        epochs arrive in batches: :class:`BatchEpochs` presents each through
        :meth:`present` (in a fresh order of its own).
    rng : numpy.random.RandomState or numpy.random.Generator or None
        Where the orders come from (None: only for ``shuffle=False``).
    shuffle : bool or {"full", "block"}
        The ``shuffle`` parameter (see :mod:`rosenblatt.engine.orders`).
    log : EpochLog, default=None
        Where to keep every epoch's order, activations and weights (one batch only).
    """

    def __init__(
        self,
        state: PrimalState,
        rule: PrimalRule,
        data: Batch | None,
        rng: Any,
        shuffle: bool | str,
        *,
        log: EpochLog | None = None,
    ) -> None:
        if log is not None and data is None:
            raise ValueError("an epoch log keeps the epochs of one batch in memory")
        self.state, self.rule, self.data, self.rng, self.shuffle = state, rule, data, rng, shuffle
        self.log = log
        self._workers: Any = None
        self._orders: EpochOrders | None = None
        self._compiled: CompiledOrders | None = None  # for epochs run in one call

    @property
    def n_units(self) -> int:
        return self.state.n_units

    @property
    def unit_stops(self) -> bool:
        """A one-vs-rest neuron stops on its own; the multinomial model as a whole."""
        return not self.state.multinomial

    def _orders_of(self, batch: Batch, ahead: bool) -> EpochOrders:
        n = batch.n_samples
        return EpochOrders(
            self.rng, n, resolve_mode(self.shuffle, n), ahead=ahead, sparse=is_sparse(batch.X)
        )

    @contextmanager
    def running(self, max_epochs: int) -> Iterator[PrimalProblem]:
        with worker_pool(self.rule.threads) as workers:
            self._workers = workers
            if self.data is None:
                yield self
            else:
                # with every core training, a helper thread making the next epoch's order
                # would take a core from them (one-vs-rest on 2 threads was 8 % slower)
                ahead = self.rule.threads == 1 and max_epochs > 1
                with self._orders_of(self.data, ahead) as orders:
                    self._orders = orders
                    try:
                        yield self
                    finally:
                        self._orders = self._compiled = None

    def finished(self) -> None:
        """Once a run, not every epoch: a weight no later score read may have overflowed."""
        self.state.check_finite(**self.rule.fix())

    def epoch(self, active: np.ndarray) -> EpochCount:
        state, rule, data = self.state, self.rule, self.data
        if data is None:
            raise ValueError("a problem without data in memory trains through BatchEpochs")
        assert self._orders is not None  # set while running
        schedule = self._orders()
        if self.log is None:
            return state.epoch(data, rule, schedule, active, self._workers)
        self.log.orders.append(np.array(schedule[0], copy=True))  # buffers are reused
        self.log.activations.append(np.empty(data.n_samples))
        count = state.epoch(data, rule, schedule, active, self._workers, self.log.activations[-1])
        self.log.weights.append((state.W.copy(), state.w0.copy()))
        return count

    def epochs(self, progress: Progress, limits: Limits, most: int) -> Epochs | None:
        """Up to ``most`` epochs in one compiled call (:meth:`PrimalState.epochs
        <rosenblatt.engine.primal.PrimalState.epochs>`), inside :meth:`running`; None where
        they cannot run that way: data read in batches, an epoch log (the trace), neurons
        on several threads, or orders the compiled loop cannot draw
        (:func:`~rosenblatt.engine.orders.compiled_orders`)."""
        data = self.data
        if self._compiled is None:
            if data is None or self.log is not None or self.rule.threads > 1:
                return None
            n = data.n_samples
            self._compiled = compiled_orders(self.rng, n, resolve_mode(self.shuffle, n))
            if self._compiled is None:
                return None
        assert data is not None  # (for mypy: a problem with compiled orders has data)
        with self._compiled.lock:
            return self.state.epochs(data, self.rule, self._compiled.draws, progress, limits, most)

    def present(self, batch: Batch, active: np.ndarray) -> EpochCount:
        """Present one batch of an epoch that arrives in batches, in a fresh order of its
        own (:class:`BatchEpochs` calls it, inside :meth:`running`)."""
        with self._orders_of(batch, ahead=False) as orders:
            return self.state.epoch(batch, self.rule, orders(), active, self._workers)

    def credit(self, epochs_left: np.ndarray, presented: int) -> None:
        self.state.credit(epochs_left, presented)


class DualProblem:
    """The samples of a kernel perceptron's state, presented epoch after epoch.

    An epoch presents the first ``Y.shape[1]`` samples of ``state`` (the new ones)
    through ``table`` (their kernel values); rows the table holds beyond them (earlier
    batches' support vectors) are never presented.

    Parameters
    ----------
    state : DualState
        Trained in place.
    table : KernelTable or BlockTable
    Y : ndarray of shape (n_problems, n)
        The ±1 targets of every dual problem.
    sample_weight : ndarray of shape (n,)
        Sample weights times class weights: the factors of the update.
    eta, s2 : float
        The learning rate and the squared constant input.
    rng : numpy.random.RandomState or numpy.random.Generator
        Where the orders (and a random budget's eviction draws) come from.
    shuffle : bool
        A fresh random order every epoch, or the data's.
    """

    unit_stops = True

    def __init__(
        self,
        state: DualState,
        table: Any,
        Y: np.ndarray,
        sample_weight: np.ndarray,
        eta: float,
        s2: float,
        rng: Any,
        shuffle: bool,
    ) -> None:
        n = Y.shape[1]
        if table.n_rows > n:  # rows for earlier batches' support vectors, never presented
            Y = np.pad(Y, ((0, 0), (0, table.n_rows - n)))
            sample_weight = np.pad(sample_weight, (0, table.n_rows - n))
        self.state, self.table, self.Y, self.sample_weight = state, table, Y, sample_weight
        self.eta, self.s2, self.rng, self.n = float(eta), float(s2), rng, n
        self.mode = "full" if shuffle else "none"

    @property
    def n_units(self) -> int:
        return self.Y.shape[0]

    def running(self, max_epochs: int) -> Any:
        return nullcontext(self)

    def finished(self) -> None:
        """Once a run: coefficients no later score read may have overflowed."""
        self.state.check_finite(eta=self.eta)

    def epoch(self, active: np.ndarray) -> EpochCount:
        order = epoch_order(self.rng, self.n, self.mode)[0]
        draws = self.rng.random(self.n) if self.state.budget.policy == "random" else None
        return self.state.epoch(
            self.table, order, self.Y, self.sample_weight, self.eta, self.s2, active, draws
        )

    def credit(self, epochs_left: np.ndarray, presented: int) -> None:
        self.state.credit(epochs_left, presented)


class BatchEpochs:
    """Epochs that arrive in batches, each presented by the learner's own function.

    Every epoch calls ``batches()`` and hands each batch it yields to
    ``present(batch, active)``, which trains the ``active`` units on it and says what it
    counted; the epoch counts their sum. This is the one place an epoch's count is kept
    between batches: with a ``run``, in ``run.partial`` after every batch (the moment
    ``after_batch()`` is called, when a checkpoint may save the run), and an epoch resumed
    inside (``run.partial`` read from a checkpoint, ``batches()`` giving the rest of the
    epoch's batches) counts on from it, so that its count is an uninterrupted epoch's.

    Parameters
    ----------
    batches : callable() -> iterable
        The batches of one epoch, in the order to present them.
    present : callable(batch, numpy.ndarray) -> EpochCount
        Trains the active units on one batch.
    problem : Problem, default=None
        What the units are and what a run holds (``n_units``, ``unit_stops``,
        ``running``, ``credit``, ``finished``): the learner's problem whose
        ``present`` this is (a :class:`PrimalProblem`). None: a model that errs and stops
        as a whole and has nothing to credit (a learner that trains each batch its own way).
    run : RunState, default=None
        Where the current epoch's count is kept after every batch; one that holds a count
        (``partial``) when the run starts is an epoch resumed inside. The run
        :func:`~rosenblatt.engine.driver.train` is given (it keeps the epochs).
    after_batch : callable(), default=None
        Called after every batch, once its count is kept.

    Examples
    --------
    >>> from rosenblatt.engine.driver import StopRule, train
    >>> def present(batch, active):  # one unit that errs on every odd number
    ...     mistakes = sum(n % 2 for n in batch)
    ...     return EpochCount(np.array([mistakes]), len(batch), np.array([1.0 * mistakes]),
    ...                       float(len(batch)))
    >>> run = RunState()
    >>> problem = BatchEpochs(lambda: [[1, 2], [3, 5, 6]], present, run=run)
    >>> train(problem, StopRule(max_epochs=2, warn=False), owner="odd", run=run).mistakes_per_epoch
    [3, 3]
    >>> run.epochs, run.partial is None
    (2, True)
    """

    def __init__(
        self,
        batches: Callable[[], Iterable[Any]],
        present: Callable[[Any, np.ndarray], EpochCount],
        *,
        problem: Problem | None = None,
        run: RunState | None = None,
        after_batch: Callable[[], Any] | None = None,
    ) -> None:
        self.batches, self.present, self.problem = batches, present, problem
        self.run, self.after_batch = run, after_batch
        self._presented_any, self._epochs_begun = False, 0

    @property
    def n_units(self) -> int:
        return 1 if self.problem is None else self.problem.n_units

    @property
    def unit_stops(self) -> bool:
        return False if self.problem is None else self.problem.unit_stops

    def running(self, max_epochs: int) -> Any:
        if self.problem is None:
            return nullcontext(self)
        return self.problem.running(max_epochs)

    def finished(self) -> None:
        finished = getattr(self.problem, "finished", None)
        if finished is not None:
            finished()

    def credit(self, epochs_left: np.ndarray, presented: int) -> None:
        if self.problem is not None:
            self.problem.credit(epochs_left, presented)

    def epoch(self, active: np.ndarray) -> EpochCount:
        run = self.run
        # only the run's first epoch may be one resumed inside (from a checkpoint's count)
        resumed = self._epochs_begun == 0 and run is not None and run.partial is not None
        self._epochs_begun += 1
        if resumed:
            assert run is not None and run.partial is not None
            mistakes, presented, mistake_weight, presented_weight = run.partial
            mistakes, mistake_weight = mistakes.copy(), mistake_weight.copy()
        else:
            mistakes, presented = np.zeros(self.n_units, dtype=np.int64), 0
            mistake_weight, presented_weight = np.zeros(self.n_units), 0.0
        for batch in self.batches():
            growth = getattr(batch, "growth", None)
            if growth is not None and self.unit_stops:  # units of classes new in this batch
                active, mistakes, mistake_weight = self._grow(
                    growth, active, mistakes, mistake_weight
                )
            count = self.present(batch, active)
            self._presented_any = True
            mistakes += count.mistakes
            presented += count.presented
            mistake_weight += count.mistake_weight
            presented_weight += count.presented_weight
            if run is not None:  # before the next batch is asked for: a checkpoint's moment
                run.partial = EpochCount(mistakes, presented, mistake_weight, presented_weight)
            if self.after_batch is not None:
                self.after_batch()
        if not (self._presented_any or resumed):
            raise ValueError(NO_BATCH)
        return EpochCount(mistakes, presented, mistake_weight, presented_weight)

    def _grow(self, growth, active, mistakes, mistake_weight):
        """The run's units once classes joined in the middle of an epoch (the problem's
        state has grown: ``growth`` says how its outputs carry over): each unit goes on
        from its source (still learning or not, its epochs, this epoch's count so far: a
        grown binary neuron's negation erred where it did), a new one learning from here
        (the epochs before count as trained: held at zero, it is owed no presentations
        for them). The driver reads the grown ``run.active`` and ``run.trained`` after the
        epoch."""
        run = self.run
        if run is None or run.trained is None:
            raise ValueError("units that join in the middle of a run need its RunState")
        run.active = growth.rows(active, fill=True)
        run.trained = growth.rows(run.trained, fill=run.epochs)
        return run.active, growth.rows(mistakes), growth.rows(mistake_weight, signed=False)


def order_source(run: RunState | None, random_state: Any) -> Any:
    """The order source of a run on batches: a resumed run's own (a checkpoint saved it),
    else one ``random_state`` starts, kept in ``run`` (where a checkpoint saves it).

    Examples
    --------
    >>> run = RunState()
    >>> rng = order_source(run, 0)
    >>> run.rng is rng
    True
    >>> run.active = np.ones(1, dtype=bool)  # started (resumed): its own source goes on
    >>> order_source(run, 0) is rng
    True
    """
    if run is not None and run.started:
        return run.rng
    rng = random_source(random_state)
    if run is not None:
        run.rng = rng
    return rng
