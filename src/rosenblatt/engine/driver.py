"""The one way into the engine for training: :func:`train`, and the epoch driver behind it.

Every training path of the package calls :func:`train` with a *problem* (what one
epoch presents to which state: :class:`~rosenblatt.engine.problems.PrimalProblem`,
:class:`~rosenblatt.engine.problems.DualProblem`, or a caller's own, such as parameter
mixing's round over the Dask partitions) and a :class:`StopRule` (``max_epochs``,
``tol``, ``n_iter_no_change``, early stopping): the linear estimators' ``fit``,
``partial_fit`` and ``fit_batches`` (and :func:`rosenblatt.fit_stream` through it), the
kernel perceptrons, parameter mixing and the step-by-step trace. So the stop rule, the
``ConvergenceWarning``, the ``verbose`` lines and the ``on_epoch`` callback are the same
everywhere, and no caller builds an epoch loop.

The stop rule (the lecture notes' termination: after a round of presentations
without a mistake): a model made of several independent units (the one-vs-rest
neurons, the dual problems) trains each unit until its first epoch without a
mistake; training ends when every unit has had one (``converged``), when the
validation error of early stopping has stopped improving, when the weighted mistake
fraction has (``tol``), or after ``max_epochs`` epochs with a ``ConvergenceWarning``.

The weighted mistake fraction of an epoch is the summed weight of the
presentations that erred (over every unit) over the summed weight of the
presentations, the weight of a presentation being the factor its update is
scaled by: the sample weight times the weight of the sample's class. The
compiled rules count both as they train (:class:`EpochCount`). With every
weight 1 it is the plain fraction of mistakes per presentation.

Where nothing in Python has to run between epochs (no ``on_epoch``, no ``verbose``
lines, no early stopping, no run kept for a checkpoint), a problem that can
(:class:`~rosenblatt.engine.problems.PrimalProblem` on data in memory) runs the epochs in
one compiled call instead, the orders drawn and the stop rule applied in there: the stop
rule is written once (:mod:`rosenblatt.engine.kernels.stop_rule`), and both paths give
the same run, to the bit.

After convergence nothing changes any more: a unit that makes no mistake keeps
its weights, so every later epoch would only present the patterns again. The
voted and averaged perceptrons count those presentations (Freund and Schapire
run all T epochs: the final, consistent vector survives every remaining
presentation), so the driver asks the caller to ``credit`` them, and a
converged run gives exactly what running to ``max_epochs`` gives.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, NamedTuple, Protocol

import numpy as np

from .kernels import stop_rule
from .kernels.bundles import Limits, Progress

__all__ = [
    "EpochCount",
    "EpochReport",
    "Epochs",
    "History",
    "Problem",
    "RunState",
    "StopRule",
    "train",
    "weighted_fraction",
]


class EpochCount(NamedTuple):
    """What one epoch counted, as every problem hands it to the epoch driver.

    Attributes
    ----------
    mistakes : ndarray of int
        Mistakes of each unit (zero where it did not train).
    presented : int
        Patterns presented (a zero-weight sample is not presented).
    mistake_weight : ndarray of float
        Per unit, the summed weight of the presentations it erred on: the sample
        weight times the class weight, the factor that scales the update.
    presented_weight : float
        The summed weight of the patterns presented.
    """

    mistakes: np.ndarray
    presented: int
    mistake_weight: np.ndarray
    presented_weight: float


class Epochs(NamedTuple):
    """What a run of epochs in one compiled call did (a problem's ``epochs``).

    Attributes
    ----------
    mistakes : ndarray of int64
        The mistakes of each epoch it ran, over every unit.
    presented : int
        Patterns the last of them presented.
    status : int
        How the run stands after them (:mod:`rosenblatt.engine.kernels.stop_rule`'s
        ``RUNNING``, ``CONVERGED`` or ``PLATEAUED``).
    """

    mistakes: np.ndarray
    presented: int
    status: int


def weighted_fraction(mistake_weight: float, presented_weight: float) -> float:
    """What the stop rule watches: ``mistake_weight / presented_weight`` (0 when nothing
    of any weight was presented; :func:`rosenblatt.engine.kernels.stop_rule.weighted_fraction`).

    Examples
    --------
    >>> weighted_fraction(3.0, 12.0)
    0.25
    """
    return float(stop_rule.weighted_fraction(float(mistake_weight), float(presented_weight)))


@dataclass(frozen=True)
class EpochReport:
    """What the ``on_epoch`` callback gets after every epoch.

    Attributes
    ----------
    epoch : int
        Epochs completed in this run (1-based).
    max_epochs : int
        The most epochs the run may take.
    mistakes : int
        Updates made in this epoch, over every unit.
    mistakes_by_unit : ndarray of int
        Updates of each unit (one-vs-rest neuron, dual problem) in this epoch.
    presented : int
        Patterns presented in this epoch.
    mistake_weight : float
        The summed weight (sample weight times class weight) of this epoch's
        mistakes, over every unit.
    presented_weight : float
        The summed weight of the patterns presented; ``mistake_weight /
        presented_weight`` is what ``tol`` watches.
    seconds : float
        Time since the run started.
    model : object
        The estimator (or trace) being trained; its fitted attributes are those
        of the last complete fit until the run ends.
    """

    epoch: int
    max_epochs: int
    mistakes: int
    mistakes_by_unit: np.ndarray
    presented: int
    mistake_weight: float
    presented_weight: float
    seconds: float
    model: object = None


@dataclass
class History:
    """What a run did: one entry of ``mistakes_per_epoch`` per epoch run; how it ended
    (``converged``: an epoch without a mistake; ``stopped_early``: the validation score
    or, with ``plateaued``, the weighted mistake fraction stopped improving)."""

    mistakes_per_epoch: list = field(default_factory=list)
    converged: bool = False
    stopped_early: bool = False
    plateaued: bool = False

    @property
    def n_iter(self) -> int:
        return len(self.mistakes_per_epoch)

    @property
    def n_mistakes(self) -> int:
        return int(sum(self.mistakes_per_epoch))


class _Plateau:
    """ "No longer improving" (:func:`rosenblatt.engine.kernels.stop_rule.stale_for`, the one
    rule): ``update(value)`` says whether ``value`` (lower is better) has failed to beat the
    best so far by more than ``tol`` for ``patience`` updates in a row (scikit-learn's
    ``tol`` and ``n_iter_no_change``); ``best`` and ``stale`` (one entry each) say where
    it stands.

    Examples
    --------
    >>> plateau = _Plateau(tol=0.01, patience=2)
    >>> [plateau.update(v) for v in (0.5, 0.3, 0.295, 0.31, 0.2)]
    [False, False, False, True, False]
    """

    def __init__(self, tol, patience):
        self.tol, self.patience = float(tol), int(patience)
        self.best, self.stale = np.array([np.inf]), np.zeros(1, dtype=np.int64)

    def update(self, value: float) -> bool:
        return bool(stop_rule.stale_for(self, float(value), self.tol, self.patience))


@dataclass
class RunState:
    """Where a run stands: enough to resume it exactly where it was (a checkpoint).

    :func:`train` keeps it up to date after every epoch; a problem that reads its
    epoch in batches (:class:`~rosenblatt.engine.problems.PrimalProblem`) keeps the
    current epoch's count in ``partial`` after every batch. Given a run that has
    started (from :meth:`from_state`), :func:`train` goes on from its next epoch,
    and the problem adds the rest of the epoch to ``partial``: the history, the stop
    rule's plateau and the credit are what an uninterrupted run gives.

    Attributes
    ----------
    epochs : int
        Epochs completed.
    mistakes_per_epoch : list of int
        The mistakes of each completed epoch.
    active, trained : ndarray of bool, ndarray of int64, or None
        Per unit: still learning; epochs trained (None before the first epoch).
    presented : int
        Patterns the last completed epoch presented.
    best, stale : float or None, int
        The plateau's best value and epochs without improvement (``tol``, early stopping).
    partial : EpochCount or None
        What the current epoch has counted so far (None: at an epoch's start).
    rng : numpy.random.RandomState or numpy.random.Generator or None
        The run's order source, where the caller keeps it here (``fit_batches``).

    Examples
    --------
    >>> run = RunState(epochs=2, mistakes_per_epoch=[3, 1], active=np.array([True]),
    ...                trained=np.array([2]), presented=4)
    >>> RunState.from_state(run.to_state()).mistakes_per_epoch
    [3, 1]
    """

    VERSION = 1

    epochs: int = 0
    mistakes_per_epoch: list = field(default_factory=list)
    active: np.ndarray | None = None
    trained: np.ndarray | None = None
    presented: int = 0
    best: float | None = None
    stale: int = 0
    partial: EpochCount | None = None
    rng: Any = None

    @property
    def started(self) -> bool:
        return self.active is not None

    def history(self) -> History:
        """The history so far: the epochs completed."""
        return History(list(self.mistakes_per_epoch))

    def to_state(self) -> dict[str, Any]:
        """Plain JSON (arrays as lists, the random source with its arrays' dtypes), exact:
        floats round-trip through JSON."""
        from .._core.random_states import rng_to_json

        def array(values):
            return None if values is None else np.asarray(values).tolist()

        state: dict[str, Any] = {
            "version": self.VERSION,
            "epochs": int(self.epochs),
            "mistakes_per_epoch": [int(m) for m in self.mistakes_per_epoch],
            "active": array(self.active),
            "trained": array(self.trained),
            "presented": int(self.presented),
            "best": None if self.best is None or not np.isfinite(self.best) else self.best,
            "stale": int(self.stale),
            "partial": None,
            "rng": None,
        }
        if self.partial is not None:
            mistakes, presented, mistake_weight, presented_weight = self.partial
            state["partial"] = {
                "mistakes": array(mistakes),
                "presented": int(presented),
                "mistake_weight": [float(w) for w in np.asarray(mistake_weight)],
                "presented_weight": float(presented_weight),
            }
        if self.rng is not None:
            state["rng"] = rng_to_json(self.rng)
        return state

    @classmethod
    def from_state(cls, state: Any) -> RunState:
        """The run :meth:`to_state` describes, every field checked first.

        Raises
        ------
        rosenblatt._core.validation.BrokenInvariant
            A ``ValueError`` naming the field that does not fit.
        """
        from .._core.random_states import rng_from_json
        from .._core.validation import hold

        def need(ok, what):
            hold(ok, f"the run's {what}")

        def count(value, what):
            need(type(value) is int and 0 <= value < 2**62, f"{what} must be a count")
            return value

        def counts(values, what, kind=int):
            need(
                isinstance(values, list) and all(type(v) is kind for v in values),
                f"{what} must be a list of {kind.__name__}",
            )
            return values

        need(isinstance(state, dict), "state must be a JSON object")
        need(state.get("version") == cls.VERSION, f"state must be of version {cls.VERSION}")
        epochs = count(state.get("epochs"), "epochs")
        history = [count(m, "mistakes") for m in counts(state.get("mistakes_per_epoch"), "history")]
        need(len(history) == epochs, "history must have one entry per epoch")
        active = trained = None
        if state.get("active") is not None:
            active = np.array(counts(state["active"], "active units", bool), dtype=bool)
            trained = np.array(
                [count(t, "epochs trained") for t in counts(state.get("trained"), "epochs")],
                dtype=np.int64,
            )
            need(
                active.shape == trained.shape and active.size > 0 and np.all(trained <= epochs),
                "units must agree in number, and train no more epochs than the run",
            )
        best = state.get("best")
        need(best is None or (type(best) is float and np.isfinite(best)), "best must be a float")
        run = cls(
            epochs=epochs,
            mistakes_per_epoch=history,
            active=active,
            trained=trained,
            presented=count(state.get("presented"), "presented"),
            best=best,
            stale=count(state.get("stale"), "stale"),
        )
        partial = state.get("partial")
        if partial is not None:
            need(isinstance(partial, dict) and active is not None, "partial epoch needs units")
            mistakes = np.array(
                [count(m, "mistakes") for m in counts(partial.get("mistakes"), "mistakes")],
                dtype=np.int64,
            )
            weight = np.array(counts(partial.get("mistake_weight"), "mistake weights", float))
            presented_weight = partial.get("presented_weight")
            need(
                mistakes.shape == weight.shape == (0 if active is None else active.size,)
                and type(presented_weight) is float
                and np.all(np.isfinite(weight) & (weight >= 0))
                and 0 <= presented_weight < np.inf,
                "partial epoch must count each unit, in finite weights >= 0",
            )
            run.partial = EpochCount(
                mistakes, count(partial.get("presented"), "presented"), weight, presented_weight
            )
        if state.get("rng") is not None:
            run.rng = rng_from_json(state["rng"], "the run's rng")
        return run


@dataclass(frozen=True)
class StopRule:
    """When a run ends: the one place ``max_iter``, ``tol``, ``n_iter_no_change`` and
    early stopping become a rule.

    Attributes
    ----------
    max_epochs : int
        The most epochs (rounds) the run takes.
    tol : float or None
        The run ends when the weighted mistake fraction has not improved by ``tol`` for
        ``n_iter_no_change`` epochs; None: to the first error-free epoch or
        ``max_epochs``, as the lecture notes' algorithm does.
    n_iter_no_change : int
    validation_error : callable() -> float, or None
        Early stopping: asked after every epoch that did not converge; the run ends
        when it has not improved by ``tol`` (0 for ``tol=None``) for ``n_iter_no_change``
        epochs (the training fraction is then not watched).
    warn : bool
        Warn when the run ends without converging or stopping early (``False`` for a
        single ``partial_fit`` epoch).
    credit : bool
        Credit the presentations a converged run skips (``False`` for ``partial_fit``).
    limit, unit : str
        The name of ``max_epochs`` where the user set it (``"max_iter"``, ``"epochs"``,
        ``"max_rounds"``) and of an epoch (``"Epoch"``, ``"Round"``), for the warning and
        the ``verbose`` lines.

    Examples
    --------
    >>> from rosenblatt import Perceptron
    >>> StopRule.of(Perceptron(tol=None, max_iter=5))
    StopRule(max_epochs=5, tol=None, n_iter_no_change=10, validation_error=None, warn=True, \
credit=True, limit='max_iter', unit='Epoch')
    """

    max_epochs: int
    tol: float | None = None
    n_iter_no_change: int = 10
    validation_error: Callable[[], float] | None = None
    warn: bool = True
    credit: bool = True
    limit: str = "max_iter"
    unit: str = "Epoch"

    @classmethod
    def of(cls, estimator: Any, max_epochs: int | None = None, **changes: Any) -> StopRule:
        """The rule an estimator's ``max_iter``, ``tol`` and ``n_iter_no_change`` set
        (``max_epochs`` and ``changes`` override them). An estimator without ``tol``
        (another library's, wrapped) runs to its first epoch without a mistake."""
        tol = getattr(estimator, "tol", None)
        return cls(
            max_epochs=int(estimator.max_iter if max_epochs is None else max_epochs),
            tol=None if tol is None else float(tol),
            n_iter_no_change=int(getattr(estimator, "n_iter_no_change", cls.n_iter_no_change)),
            **changes,
        )

    def plateau(self) -> _Plateau | None:
        """What watches the run for "no longer improving": the validation error's
        (early stopping), else the weighted mistake fraction's, else nothing."""
        if self.validation_error is not None:
            return _Plateau(self.tol or 0.0, self.n_iter_no_change)
        return None if self.tol is None else _Plateau(self.tol, self.n_iter_no_change)


class Problem(Protocol):
    """What :func:`train` trains: the units and one epoch of them.

    :class:`~rosenblatt.engine.problems.PrimalProblem` and
    :class:`~rosenblatt.engine.problems.DualProblem` are the engine's; a caller may
    bring its own (parameter mixing trains rounds of Dask partitions).
    """

    @property
    def n_units(self) -> int:
        """Units that stop on their own (1 for a model that errs as a whole)."""
        ...

    @property
    def unit_stops(self) -> bool:
        """Whether a unit stops after its first error-free epoch (else the model as a whole)."""
        ...

    def running(self, max_epochs: int) -> AbstractContextManager[Any]:
        """What a run holds while it lasts (threads, an order source)."""
        ...

    def epoch(self, active: np.ndarray) -> EpochCount:
        """Train one epoch of the ``active`` units; what it counted."""
        ...

    def credit(self, epochs_left: np.ndarray, presented: int) -> None:
        """Count the presentations of the epochs a converged run skips."""
        ...

    # optional: ``finished()``, called once the run ends (before its warning), checks the
    # state (the engine's problems refuse weights beyond the float range there); and
    # ``epochs(progress, limits, most)``, which runs up to ``most`` epochs in one compiled
    # call, :func:`~rosenblatt.engine.kernels.stop_rule.end_epoch` after each, and says what
    # they did (an :class:`Epochs`), or None where its epochs cannot run that way


def train(
    problem: Problem,
    stop: StopRule,
    *,
    owner: str,
    advice: str = "",
    on_epoch: Callable[[EpochReport], Any] | None = None,
    verbose: int = 0,
    model: Any = None,
    run: RunState | None = None,
) -> History:
    """Train ``problem`` epoch after epoch until ``stop`` says so; what the run did.

    Where nothing has to run in Python between epochs (no ``on_epoch``, no ``verbose``, no
    ``stop.validation_error``, no ``run``) and the problem can, its epochs run in one
    compiled call (its ``epochs``); else one by one. Both give the same run.

    Parameters
    ----------
    problem : Problem
        Its state is trained in place.
    stop : StopRule
    owner : str
        Who trains, for the warning (e.g. ``"Perceptron"``).
    advice : str
        What to do when it does not converge.
    on_epoch : callable(EpochReport), default=None
    verbose : int, default=0
        Print one line per epoch.
    model : object, default=None
        Passed on in every :class:`EpochReport`.
    run : RunState, default=None
        Kept up to date after every epoch, for a checkpoint; one that has started is
        resumed (its problem must go on from the same point: the same state, and the
        rest of the current epoch's batches).

    Returns
    -------
    History
    """
    with problem.running(stop.max_epochs):
        at_once = getattr(problem, "epochs", None)
        quiet = on_epoch is None and not verbose and stop.validation_error is None
        ran = None
        if at_once is not None and quiet and run is None:
            ran = _run_at_once(at_once, problem.n_units, problem.unit_stops, stop)
        if ran is None:
            run = RunState() if run is None else run
            ran = _run_epochs(problem, stop, on_epoch, verbose, model, run)
        credit = problem.credit if stop.credit else None
        return _end(ran, credit, getattr(problem, "finished", None), stop, owner, advice)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _outside_the_package() -> int:
    """The ``stacklevel`` of the first caller outside rosenblatt: a warning points at
    the user's ``fit`` call, however deep the path that trained."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


@dataclass
class _Ran:
    """A run's history, with what its end needs: the epochs each unit trained and the
    patterns the last epoch presented."""

    history: History
    trained: np.ndarray
    presented: int


def _limits(stop: StopRule, unit_stops: bool, watch: bool) -> Limits:
    return Limits(float(stop.tol or 0.0), int(stop.n_iter_no_change), bool(unit_stops), watch)


def _run_at_once(
    epochs: Callable[[Progress, Limits, int], Epochs | None],
    n_units: int,
    unit_stops: bool,
    stop: StopRule,
) -> _Ran | None:
    """The run in compiled calls of ``epochs`` (each as many epochs as the problem takes in
    one), or None when the problem cannot run its epochs that way."""
    progress = Progress(
        np.ones(n_units, dtype=bool),
        np.zeros(n_units, dtype=np.int64),
        np.array([np.inf]),
        np.zeros(1, dtype=np.int64),
    )
    limits = _limits(stop, unit_stops, watch=stop.tol is not None)
    history = History()
    presented = 0
    while history.n_iter < stop.max_epochs:
        done = epochs(progress, limits, stop.max_epochs - history.n_iter)
        if done is None:
            if history.n_iter:  # a problem decides once, before its first epoch
                raise RuntimeError("a problem stopped running its epochs in one call mid-run")
            return None
        history.mistakes_per_epoch.extend(done.mistakes.tolist())
        presented = done.presented
        if done.status != stop_rule.RUNNING:
            history.converged = done.status == stop_rule.CONVERGED
            history.stopped_early = history.plateaued = done.status == stop_rule.PLATEAUED
            break
    return _Ran(history, progress.trained, presented)


def _run_epochs(
    problem: Problem,
    stop: StopRule,
    on_epoch: Callable[[EpochReport], Any] | None,
    verbose: int,
    model: Any,
    run: RunState,
) -> _Ran:
    """Run ``problem``'s epochs one by one until every unit has had an error-free epoch, or
    ``stop`` ends the run.

    ``problem.epoch(active)`` trains the units where ``active`` is true and returns what it
    counted; :func:`~rosenblatt.engine.kernels.stop_rule.end_epoch` applies the stop rule
    (``problem.unit_stops``: whether a unit stops training after its first error-free
    epoch, else the model stops as a whole), and then, with early stopping, the validation
    error is watched. ``run`` is where the run stands, kept up to date after every epoch; a
    started one is resumed.
    """
    epoch, n_units, unit_stops = problem.epoch, problem.n_units, problem.unit_stops
    max_epochs, unit = stop.max_epochs, stop.unit
    plateau = stop.plateau()
    watched = plateau is not None
    active = np.ones(n_units, dtype=bool) if run.active is None else run.active
    trained = np.zeros(n_units, dtype=np.int64) if run.trained is None else run.trained
    if active.shape != (n_units,):
        raise ValueError(f"the run to resume has {active.size} units; this one {n_units}")
    run.active, run.trained, presented = active, trained, run.presented
    if plateau is None:  # nothing is watched: a plateau never updated
        plateau = _Plateau(0.0, stop.n_iter_no_change)
    else:
        plateau.best[0] = np.inf if run.best is None else run.best
        plateau.stale[0] = run.stale
    progress = Progress(active, trained, plateau.best, plateau.stale)
    validation_error = stop.validation_error
    limits = _limits(stop, unit_stops, watch=stop.tol is not None and validation_error is None)
    history = run.history()
    start = time.perf_counter()
    for number in range(run.epochs + 1, max_epochs + 1):
        mistakes, presented, mistake_weight, presented_weight = epoch(active)
        if run.active is not active:  # grown where classes joined in the epoch
            active, trained = run.active, run.trained
            progress = progress._replace(active=active, trained=trained)
        mistakes = np.asarray(mistakes, dtype=np.int64)
        mistake_weight = np.asarray(mistake_weight, dtype=np.float64)
        presented_weight = float(presented_weight)
        total = int(mistakes.sum())
        history.mistakes_per_epoch.append(total)
        status = stop_rule.end_epoch(progress, mistakes, mistake_weight, presented_weight, limits)
        if verbose:
            print(f"-- {unit} {number}: {total} mistake(s)")
        if on_epoch is not None:
            on_epoch(
                EpochReport(
                    number,
                    max_epochs,
                    total,
                    mistakes.copy(),
                    int(presented),
                    float(stop_rule.summed(mistake_weight)),
                    presented_weight,
                    time.perf_counter() - start,
                    model,
                )
            )
        if status == stop_rule.RUNNING and validation_error is not None:
            if plateau.update(validation_error()):
                status = stop_rule.PLATEAUED
        else:
            history.plateaued = status == stop_rule.PLATEAUED
        history.converged = status == stop_rule.CONVERGED
        history.stopped_early = status == stop_rule.PLATEAUED
        run.epochs, run.presented, run.partial = number, presented, None
        run.mistakes_per_epoch = history.mistakes_per_epoch
        if watched:
            run.best, run.stale = float(plateau.best[0]), int(plateau.stale[0])
        if status != stop_rule.RUNNING:
            break
    return _Ran(history, trained, presented)


def _end(
    ran: _Ran,
    credit: Callable[[np.ndarray, int], Any] | None,
    finished: Callable[[], Any] | None,
    stop: StopRule,
    owner: str,
    advice: str,
) -> History:
    """End a run (however its epochs ran): ``credit(epochs_left, presented)`` gets, per
    unit, the epochs it did not train that a run to the end would have given it (after its
    error-free epoch, up to ``max_epochs`` when every unit converged, else up to the last
    epoch run), and the patterns an epoch presents; ``finished()``, if given, checks the
    state; then the warning of a run that did not converge."""
    history, trained, max_epochs = ran.history, ran.trained, stop.max_epochs
    end = max_epochs if history.converged else history.n_iter
    if credit is not None and np.any(trained < end):
        credit(end - trained, ran.presented)
    if finished is not None:
        finished()
    if stop.warn and not (history.converged or history.stopped_early):
        from sklearn.exceptions import ConvergenceWarning  # imported here: `trace` needs none

        warnings.warn(
            f"{owner} did not converge: the last of {stop.limit}={max_epochs} "
            f"{stop.unit.lower()}s still made {history.mistakes_per_epoch[-1]} mistake(s). "
            f"{advice}",
            ConvergenceWarning,
            stacklevel=_outside_the_package(),
        )
    return history
