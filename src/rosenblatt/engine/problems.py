"""The training problems :func:`~rosenblatt.engine.driver.train` runs: what one epoch presents.

- :class:`PrimalProblem`: patterns (one in-memory :class:`~rosenblatt.engine.primal.Batch`,
  or the batches each epoch reads) presented to a
  :class:`~rosenblatt.engine.primal.PrimalState` by a
  :class:`~rosenblatt.engine.primal.PrimalRule`, in an order from the fit's random source;
- :class:`DualProblem`: the samples of a :class:`~rosenblatt.engine.dual.DualState`,
  read through a kernel table, presented by the dual rule.

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
from .driver import EpochCount, RunState
from .orders import EpochOrders, epoch_order, resolve_mode
from .primal import Batch, PrimalRule, PrimalState, worker_pool

if TYPE_CHECKING:  # pragma: no cover
    from .dual import DualState

__all__ = ["DualProblem", "EpochLog", "PrimalProblem"]


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
    data : Batch or callable() -> iterable of Batch
        The patterns in memory (one order source serves the whole run: in block mode
        the next epoch's order is made while one trains), or what reads each epoch's
        batches (each presented once in a fresh order of its own: ``fit_batches``).
    rng : numpy.random.RandomState or numpy.random.Generator or None
        Where the orders come from (None: only for ``shuffle=False``).
    shuffle : bool or {"full", "block"}
        The ``shuffle`` parameter (see :mod:`rosenblatt.engine.orders`).
    log : EpochLog, default=None
        Where to keep every epoch's order, activations and weights (one batch only).
    run : RunState, default=None
        Batches only: where the current epoch's count is kept after every batch (a
        checkpoint's), and, when it holds one, the count an epoch resumed starts from.
    """

    def __init__(
        self,
        state: PrimalState,
        rule: PrimalRule,
        data: Batch | Callable[[], Iterable[Batch]],
        rng: Any,
        shuffle: bool | str,
        *,
        log: EpochLog | None = None,
        run: RunState | None = None,
    ) -> None:
        if log is not None and not isinstance(data, Batch):
            raise ValueError("an epoch log keeps the epochs of one batch in memory")
        if run is not None and isinstance(data, Batch):
            raise ValueError("a run is resumed between batches; one batch in memory has none")
        self.state, self.rule, self.data, self.rng, self.shuffle = state, rule, data, rng, shuffle
        self.log, self.run = log, run
        self._workers: Any = None
        self._orders: EpochOrders | None = None

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
            if not isinstance(self.data, Batch):
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
                        self._orders = None

    def finished(self) -> None:
        """Once a run, not every epoch: a weight no later score read may have overflowed."""
        self.state.check_finite(**self.rule.fix())

    def epoch(self, active: np.ndarray) -> EpochCount:
        state, rule = self.state, self.rule
        if isinstance(self.data, Batch):
            assert self._orders is not None  # set while running
            schedule = self._orders()
            if self.log is None:
                return state.epoch(self.data, rule, schedule, active, self._workers)
            self.log.orders.append(np.array(schedule[0], copy=True))  # buffers are reused
            self.log.activations.append(np.empty(self.data.n_samples))
            count = state.epoch(
                self.data, rule, schedule, active, self._workers, self.log.activations[-1]
            )
            self.log.weights.append((state.W.copy(), state.w0.copy()))
            return count
        run = self.run
        if run is not None and run.partial is not None:  # resumed inside this epoch
            mistakes, presented, mistake_weight, presented_weight = run.partial
            mistakes, mistake_weight = mistakes.copy(), mistake_weight.copy()
        else:
            mistakes, presented = np.zeros(state.n_units, dtype=np.int64), 0
            mistake_weight, presented_weight = np.zeros(state.n_units), 0.0
        for batch in self.data():
            with self._orders_of(batch, ahead=False) as orders:
                count = state.epoch(batch, rule, orders(), active, self._workers)
            mistakes += count.mistakes
            presented += count.presented
            mistake_weight += count.mistake_weight
            presented_weight += count.presented_weight
            if run is not None:  # before the next batch is asked for: a checkpoint's moment
                run.partial = EpochCount(mistakes, presented, mistake_weight, presented_weight)
        return EpochCount(mistakes, presented, mistake_weight, presented_weight)

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
