"""The one epoch driver: epochs until convergence, an early stop or the last epoch.

Every training path of the package runs its epochs through :func:`run_epochs`:
the linear estimators' ``fit`` and ``partial_fit``, training on batches from a
file (:func:`rosenblatt.fit_stream`), the kernel perceptron, parameter mixing on
Dask (an epoch there is a round over the partitions) and the step-by-step
trace. So the stop rule, the ``ConvergenceWarning``, the ``verbose`` lines and
the ``on_epoch`` callback are the same everywhere.

The stop rule (the lecture notes' termination: after a round of presentations
without a mistake): a model made of several independent units (the one-vs-rest
neurons, the dual problems) trains each unit until its first epoch without a
mistake; training ends when every unit has had one (``converged``), when
``stop_early`` says so, when the ``plateau`` (``tol``) says the weighted mistake
fraction has stopped improving, or after ``max_epochs`` epochs with a
``ConvergenceWarning``.

The weighted mistake fraction of an epoch is the summed weight of the
presentations that erred (over every unit) over the summed weight of the
presentations, the weight of a presentation being the factor its update is
scaled by: the sample weight times the weight of the sample's class. The
compiled rules count both as they train (:class:`EpochCount`). With every
weight 1 it is the plain fraction of mistakes per presentation.

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
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, NamedTuple

import numpy as np

__all__ = ["EpochCount", "EpochReport", "History", "Plateau", "run_epochs", "weighted_fraction"]


class EpochCount(NamedTuple):
    """What one epoch counted, as every training path hands it to :func:`run_epochs`.

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


def weighted_fraction(mistake_weight: float, presented_weight: float) -> float:
    """What the stop rule watches: ``mistake_weight / presented_weight`` (0 when nothing
    of any weight was presented).

    Examples
    --------
    >>> weighted_fraction(3.0, 12.0)
    0.25
    """
    return float(mistake_weight) / presented_weight if presented_weight > 0 else 0.0


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


class Plateau:
    """The one rule for "no longer improving": ``update(value)`` says whether ``value``
    (lower is better) has failed to beat the best so far by more than ``tol`` for
    ``patience`` updates in a row (scikit-learn's ``tol`` and ``n_iter_no_change``).

    Examples
    --------
    >>> plateau = Plateau(tol=0.01, patience=2)
    >>> [plateau.update(v) for v in (0.5, 0.3, 0.295, 0.31, 0.2)]
    [False, False, False, True, False]
    """

    def __init__(self, tol, patience):
        self.tol, self.patience = float(tol), int(patience)
        self.best, self.stale = np.inf, 0

    @classmethod
    def of(cls, estimator: Any) -> Plateau | None:
        """The rule an estimator's ``tol`` and ``n_iter_no_change`` set (None: ``tol=None``)."""
        tol = getattr(estimator, "tol", None)
        return None if tol is None else cls(tol, estimator.n_iter_no_change)

    def update(self, value: float) -> bool:
        if value > self.best - self.tol:
            self.stale += 1
        else:
            self.stale = 0
        self.best = min(self.best, value)
        return self.stale >= self.patience


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _outside_the_package() -> int:
    """The ``stacklevel`` of the first caller outside rosenblatt: a warning points at
    the user's ``fit`` call, however deep the path that trained."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def run_epochs(
    epoch: Callable[[np.ndarray], EpochCount],
    *,
    n_units: int,
    max_epochs: int,
    owner: str,
    advice: str,
    credit: Callable[[np.ndarray, int], Any] | None = None,
    on_epoch: Callable[[EpochReport], Any] | None = None,
    stop_early: Callable[[int], bool] | None = None,
    verbose: int = 0,
    warn: bool = True,
    model: Any = None,
    unit_stops: bool = True,
    limit: str = "max_iter",
    unit: str = "Epoch",
    plateau: Plateau | None = None,
) -> History:
    """Run ``epoch`` until every unit has had an error-free epoch, or ``max_epochs``.

    Parameters
    ----------
    epoch : callable(active) -> EpochCount
        Trains one epoch of the units where ``active`` (bool array) is true and
        returns what it counted: each unit's mistakes (int array, zero where
        inactive), the number of patterns presented, each unit's summed weight of
        its mistakes and the summed weight of the patterns presented.
    n_units : int
        Units that stop on their own (1 for a model that errs as a whole).
    max_epochs : int
    owner : str
        Who trains, for the warning (e.g. ``"Perceptron"``).
    advice : str
        What to do when it does not converge, in the words of where the user
        is (API parameters, or command-line options).
    credit : callable(epochs_left, presented) or None
        Called at the end with, per unit, the epochs it did not train that a
        run to the end would have given it (after its error-free epoch, up to
        ``max_epochs`` when every unit converged, else up to the last epoch run),
        and the patterns an epoch presents.
    on_epoch : callable(EpochReport) or None
    stop_early : callable(epoch_number) -> bool, or None
        Asked after every epoch that did not converge (early stopping).
    verbose : int
        Print one line per epoch.
    warn : bool
        Warn when the run ends without converging or stopping early (``False`` for
        a single ``partial_fit`` epoch).
    model : object
        Passed on in every :class:`EpochReport`.
    unit_stops : bool
        Whether a unit stops training after its first error-free epoch.
    limit, unit : str
        The name of ``max_epochs`` where the user set it (``"max_iter"``,
        ``"epochs"``, ``"max_rounds"``) and of an epoch (``"Epoch"``, ``"Round"``),
        for the warning and the ``verbose`` lines.
    plateau : Plateau or None
        The stop rule for data that are not separable: after every epoch that made
        mistakes (and where ``stop_early`` did not stop), its weighted mistake
        fraction (:func:`weighted_fraction` of the summed weight of the mistakes,
        over every unit, and of the presentations) is given to the plateau, and the
        run ends, without a warning, when the plateau says it has stopped improving.
        None: run to the first error-free epoch or ``max_epochs``, as the lecture
        notes' algorithm does.

    Returns
    -------
    History
    """
    history = History()
    active = np.ones(n_units, dtype=bool)
    trained = np.zeros(n_units, dtype=np.int64)
    start = time.perf_counter()
    presented = 0
    for number in range(1, max_epochs + 1):
        mistakes, presented, mistake_weight, presented_weight = epoch(active)
        mistakes = np.asarray(mistakes, dtype=np.int64)
        trained[active] += 1
        total = int(mistakes.sum())
        total_weight = float(np.sum(mistake_weight))
        presented_weight = float(presented_weight)
        history.mistakes_per_epoch.append(total)
        if unit_stops:
            active &= mistakes > 0
        elif total == 0:
            active[:] = False
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
                    total_weight,
                    presented_weight,
                    time.perf_counter() - start,
                    model,
                )
            )
        if not active.any():
            history.converged = True
            break
        if stop_early is not None and stop_early(number):
            history.stopped_early = True
            break
        if plateau is not None and plateau.update(
            weighted_fraction(total_weight, presented_weight)
        ):
            history.stopped_early = history.plateaued = True
            break
    end = max_epochs if history.converged else history.n_iter
    if credit is not None and np.any(trained < end):
        credit(end - trained, presented)
    if warn and not (history.converged or history.stopped_early):
        from sklearn.exceptions import ConvergenceWarning  # imported here: `trace` needs none

        warnings.warn(
            f"{owner} did not converge: the last of {limit}={max_epochs} "
            f"{unit.lower()}s still made {history.mistakes_per_epoch[-1]} mistake(s). {advice}",
            ConvergenceWarning,
            stacklevel=_outside_the_package(),
        )
    return history
