"""The stop rule after every epoch, written once: plain Python that numba can compile.

The epoch driver (:func:`rosenblatt.engine.driver.train`) calls these functions as they
are, after every epoch it runs in Python; the compiled run of a fit's epochs
(:func:`.primal.primal_epochs`) compiles the very same functions into its loop. So
both paths take the same decisions from the same numbers, to the bit:

- a unit that trained counts the epoch (``trained``); a unit that stops on its own (a
  one-vs-rest neuron) stops after its first epoch without a mistake, a model that errs as
  a whole (multinomial) after the first epoch without any; the run has converged when
  no unit is left;
- else, with ``tol``, the weighted mistake fraction (the summed weight of the epoch's
  mistakes over the summed weight of its presentations) is watched: the run ends when
  it has not beaten the best so far by more than ``tol`` for ``n_iter_no_change``
  epochs in a row (scikit-learn's rule).

The state a run keeps between epochs is a
:class:`~rosenblatt.engine.kernels.bundles.Progress` (``active``, ``trained``, and the
plateau's ``best`` and ``stale`` as one-entry arrays, so that compiled code updates them
in place); what it is told is a :class:`~rosenblatt.engine.kernels.bundles.Limits`.
No numba here: the driver imports this module without loading it.
"""

import numpy as np

__all__ = [
    "CONVERGED",
    "OVERFLOWED",
    "PLATEAUED",
    "RUNNING",
    "end_epoch",
    "stale_for",
    "summed",
    "weighted_fraction",
]

#: How a run stands after an epoch: on, converged, no longer improving (``tol``), or (the
#: compiled run only) stopped on a score beyond the float range, which the caller refuses.
RUNNING, CONVERGED, PLATEAUED, OVERFLOWED = 0, 1, 2, 3

#: numpy sums a run of at most this many values in eight interleaved partial sums
_BLOCK = 128


def _block_sum(values, start, n):
    """numpy's sum of ``values[start:start + n]``, ``n <= 128``: up to 7 values one after
    another from 0.0; else eight partial sums (value ``j`` into sum ``j % 8``), combined
    pairwise, and then the rest one after another."""
    if n < 8:
        total = 0.0
        for i in range(n):
            total += values[start + i]
        return total
    p0, p1, p2, p3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    p4, p5, p6, p7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = 8
    while i < n - n % 8:
        j = start + i
        p0 += values[j]
        p1 += values[j + 1]
        p2 += values[j + 2]
        p3 += values[j + 3]
        p4 += values[j + 4]
        p5 += values[j + 5]
        p6 += values[j + 6]
        p7 += values[j + 7]
        i += 8
    total = ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))
    while i < n:
        total += values[start + i]
        i += 1
    return total


def summed(values):
    """``numpy.sum(values)`` of a 1-D float64 array, to the bit, in compiled code too.

    numpy sums pairwise: a run of more than 128 values is cut in two (the first part a
    multiple of 8 long) and the two sums added; this walks the same tree with a stack
    (numba compiles no recursion through a plain function).

    Examples
    --------
    >>> values = np.random.RandomState(0).randn(300) * 1e3
    >>> bool(summed(values) == np.sum(values))
    True
    """
    n = values.shape[0]
    if n <= _BLOCK:
        return _block_sum(values, 0, n)
    # one frame per level of the tree: its start, length, stage (0: go left, 1: go
    # right, 2: add) and its left part's sum; 64 levels halve any array's length
    start = np.zeros(64, dtype=np.int64)
    length = np.zeros(64, dtype=np.int64)
    stage = np.zeros(64, dtype=np.int64)
    left = np.zeros(64)
    length[0] = n
    depth = 0
    total = 0.0
    while depth >= 0:
        size = length[depth]
        half = size // 2
        half -= half % 8
        if stage[depth] == 0 and size <= _BLOCK:
            total = _block_sum(values, start[depth], size)
            depth -= 1
        elif stage[depth] == 0:
            stage[depth] = 1
            depth += 1
            start[depth], length[depth], stage[depth] = start[depth - 1], half, 0
        elif stage[depth] == 1:
            left[depth] = total
            stage[depth] = 2
            depth += 1
            start[depth], length[depth] = start[depth - 1] + half, size - half
            stage[depth] = 0
        else:
            total = left[depth] + total
            depth -= 1
    return total


def weighted_fraction(mistake_weight, presented_weight):
    """What ``tol`` watches: ``mistake_weight / presented_weight`` (0 when nothing of any
    weight was presented).

    Examples
    --------
    >>> weighted_fraction(3.0, 12.0)
    0.25
    """
    if presented_weight > 0:
        return mistake_weight / presented_weight
    return 0.0


def stale_for(plateau, value, tol, patience):
    """Whether ``value`` (lower is better) has now failed to beat the best so far by more
    than ``tol`` for ``patience`` updates in a row; ``plateau.best[0]`` and
    ``plateau.stale[0]`` (the best value and the updates without improvement) are updated.

    Examples
    --------
    >>> from rosenblatt.engine.kernels.bundles import Progress
    >>> plateau = Progress(None, None, np.array([np.inf]), np.array([0]))
    >>> [bool(stale_for(plateau, v, 0.01, 2)) for v in (0.5, 0.3, 0.295, 0.31, 0.2)]
    [False, False, False, True, False]
    """
    best = plateau.best[0]
    if value > best - tol:
        plateau.stale[0] += 1
    else:
        plateau.stale[0] = 0
    if value < best:  # as min(best, value): the best stays on a tie (or a NaN)
        plateau.best[0] = value
    return plateau.stale[0] >= patience


def end_epoch(progress, mistakes, mistake_weight, presented_weight, limits):
    """Apply the stop rule after an epoch; how the run stands (:data:`RUNNING`,
    :data:`CONVERGED` or :data:`PLATEAUED`).

    Parameters
    ----------
    progress : Progress
        Updated in place: every unit that trained counts the epoch, a unit that stops
        leaves ``active``, and with ``limits.watch`` the plateau sees the weighted
        mistake fraction.
    mistakes : ndarray of int64, shape (n_units,)
        The epoch's mistakes per unit (0 for a unit that did not train).
    mistake_weight : ndarray of float64, shape (n_units,)
        The summed weight of each unit's mistakes.
    presented_weight : float
        The summed weight of the epoch's presentations.
    limits : Limits
        ``tol`` and ``patience`` (``n_iter_no_change``); ``unit_stops``: whether a unit
        stops on its own; ``watch``: whether the weighted mistake fraction is watched.

    Examples
    --------
    >>> from rosenblatt.engine.kernels.bundles import Limits, Progress
    >>> progress = Progress(np.array([True, True]), np.zeros(2, dtype=np.int64),
    ...                     np.array([np.inf]), np.array([0]))
    >>> limits = Limits(0.0, 5, True, False)
    >>> end_epoch(progress, np.array([0, 2]), np.array([0.0, 2.0]), 10.0, limits) == RUNNING
    True
    >>> progress.active.tolist(), progress.trained.tolist()
    ([False, True], [1, 1])
    """
    active, trained = progress.active, progress.trained
    total = 0
    for u in range(active.shape[0]):
        if active[u]:
            trained[u] += 1
        total += mistakes[u]
    learning = False
    for u in range(active.shape[0]):
        if limits.unit_stops:
            active[u] = active[u] and mistakes[u] > 0
        elif total == 0:
            active[u] = False
        learning = learning or active[u]
    if not learning:
        return CONVERGED
    if limits.watch:
        fraction = weighted_fraction(summed(mistake_weight), presented_weight)
        if stale_for(progress, fraction, limits.tol, limits.patience):
            return PLATEAUED
    return RUNNING
