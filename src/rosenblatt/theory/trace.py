"""Step-by-step perceptron training traces: the tables of the lecture notes' worked example.

:func:`trace` runs Rosenblatt's rule with the engine's own epoch, one pattern at a
time, and reads every intermediate weight vector off the engine's record of the
updates, so that a small problem can be followed by hand. It is a teaching tool;
:class:`rosenblatt.Perceptron` is the fast implementation of the same rule and
reaches the same weights.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from .._core.config import TEACHING_BIAS_INPUT, TRACE_MAX_PRESENTATIONS
from .._core.sparse import is_sparse
from .._core.validation import BOOL, RANDOM_STATE, Interval, Options, check_args, checked_Xy
from ..engine.driver import StopRule, train
from ..engine.orders import random_source
from ..engine.primal import Batch, PrimalRule, PrimalState
from ..engine.problems import EpochLog, PrimalProblem
from ._inputs import signed_targets

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .._core.typing import ArrayLike, MatrixLike, RandomStateLike

__all__ = ["Trace", "trace"]


def _fmt(value: float) -> str:
    """Integers as integers (the lecture notes' tables), other numbers compactly."""
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))  # also turns -0.0 into "0"
    return f"{value:.6g}"


def _latex_name(name: str) -> str:
    """A column name of :meth:`Trace.table` in LaTeX (``Δw_0`` -> ``$\\Delta w_{0}$``)."""
    if name in ("a/a", "Update"):
        return name
    if name == "t w.x":
        return r"$t\,\mathbf{w}\cdot\mathbf{x}$"
    prefix, index = name.rsplit("_", 1)
    return "$" + prefix.replace("Δ", "\\Delta ") + "_{" + index + "}$"


class Trace:
    """Record of a perceptron training run, as returned by :func:`rosenblatt.theory.trace`.

    Rows are pattern presentations, in order; steps are weight changes: one per
    row in online mode, one per epoch in batch mode.

    Attributes
    ----------
    weights : ndarray of shape (n_steps + 1, n_features + 1)
        The augmented weight vector ``[w_1 .. w_d, w_0]`` before training (row 0)
        and after each step. Without an intercept there is no ``w_0`` column.
    step : ndarray of shape (n_rows,)
        Step each row belongs to (1-based): it saw ``weights[step - 1]``.
    epoch : ndarray of shape (n_rows,)
        Epoch of each row (1-based).
    pattern : ndarray of shape (n_rows,)
        Index into ``X`` of the pattern presented (0-based; the printed ``a/a``
        column and :meth:`to_frame`'s ``pattern`` are ``pattern + 1``, as the
        lecture notes number the patterns).
    tx : ndarray of shape (n_rows, n_features + 1)
        ``t * x`` for the augmented pattern ``x = (x_1 .. x_d, bias_input)``.
    activation : ndarray of shape (n_rows,)
        ``t * (w . x)`` with the weights before the step.
    updated : ndarray of bool of shape (n_rows,)
        Whether the pattern triggered an update (``t * (w . x) <= 0``).
    delta_w : ndarray of shape (n_steps, n_features + 1)
        Change of the weight vector at each step.
    classes : ndarray of shape (2,)
        The labels; ``classes[1]`` has target ``t = +1``.
    averaged : ndarray of shape (n_rows + 1, n_features + 1), or None
        Online mode: the averaged perceptron's augmented weights after each of 0 ..
        n_rows presentations: CIML Algorithm 7's ``w - u / c``, the mean of the rows
        ``weights[0]`` (the initial zeros) .. ``weights[c]`` after ``c`` presentations;
        the last row is :class:`rosenblatt.AveragedPerceptron`'s, which also counts
        the epochs a converged run skips (up to ``max_iter``). None in batch mode.
    record : VoteRecord or None
        The engine's record of the run's updates
        (:class:`rosenblatt.engine.votes.VoteRecord`, one voter): the update log,
        the weights and the vote after any presentation.
    counted : int or None
        Online mode: the presentations the averaged and voted perceptrons count, the
        epochs a converged run skips (up to ``max_iter``) included, as the engine credits
        them (:class:`rosenblatt.VotedPerceptron`'s last vector survives them all). None
        in batch mode.
    mode, eta, bias_input, fit_intercept
        The arguments of :func:`trace`.
    """

    def __init__(
        self,
        *,
        mode,
        eta,
        bias_input,
        fit_intercept,
        classes,
        weights,
        step,
        epoch,
        pattern,
        tx,
        activation,
        updated,
        delta_w,
        averaged=None,
        record=None,
        counted=None,
    ):
        self.mode = mode
        self.eta = eta
        self.bias_input = bias_input
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.weights = weights
        self.step = step
        self.epoch = epoch
        self.pattern = pattern
        self.tx = tx
        self.activation = activation
        self.updated = updated
        self.delta_w = delta_w
        self.averaged = averaged
        self.record = record
        self.counted = counted

    # ------------------------------------------------------------------ summaries
    @property
    def n_features(self) -> int:
        """Number of features ``d`` of the patterns (the bias input not counted)."""
        return self.weights.shape[1] - int(self.fit_intercept)

    @property
    def n_steps(self) -> int:
        """Number of steps: rows of ``weights`` after the initial zeros."""
        return self.weights.shape[0] - 1

    @property
    def n_updates(self) -> int:
        """Patterns that triggered an update (``YES`` rows); the perceptron's mistakes."""
        return int(self.updated.sum())

    @property
    def n_epochs(self) -> int:
        """Number of epochs run."""
        return int(self.epoch[-1])

    @property
    def mistakes_per_epoch(self) -> np.ndarray:
        """Updates in each epoch run, an array of shape ``(n_epochs,)``."""
        return np.bincount(self.epoch[self.updated], minlength=self.n_epochs + 1)[1:]

    @property
    def converged(self) -> bool:
        """Whether the last epoch made no update (training stops there)."""
        return bool(self.mistakes_per_epoch[-1] == 0)

    @property
    def coef(self) -> np.ndarray:
        """Final ``w_1 .. w_d``."""
        return self.weights[-1, : self.n_features].copy()

    @property
    def intercept(self) -> float:
        """Final intercept ``w_0 * bias_input`` (0.0 without an intercept)."""
        if not self.fit_intercept:
            return 0.0
        return float(self.weights[-1, -1] * self.bias_input) + 0.0  # + 0.0: never -0.0

    def tally(self, X: ArrayLike, presented: ArrayLike) -> np.ndarray:
        """The voted perceptron's vote on ``X[q]`` after ``presented[q]`` presentations
        (online mode): ``(n, 2)`` int, the votes for ``classes[1]`` and against, the
        weights after each presentation so far voting once (a zero score votes
        against, as in training).

        Examples
        --------
        >>> tr = trace([[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1])
        >>> tr.tally([[1, -1]], [8]).tolist()  # the first weights, (1, 1, 1), vote against
        [[7, 1]]
        """
        if self.mode != "online" or self.record is None:
            raise ValueError("a tally needs an online trace")
        X = np.asarray(X, dtype=np.float64).reshape(-1, self.n_features)
        presented = np.asarray(presented, dtype=np.int64)
        if presented.shape != (X.shape[0],) or np.any(
            (presented < 0) | (presented > self.step.shape[0])
        ):
            raise ValueError(f"one count of presentations, 0..{self.step.shape[0]}, per point")
        return self.record.tally(0, X, np.arange(X.shape[0]), presented)

    # ------------------------------------------------------------------ views
    def _names(self, prefix: str) -> list[str]:
        names = [f"{prefix}_{j + 1}" for j in range(self.n_features)]
        return names + [f"{prefix}_0"] if self.fit_intercept else names

    def _row_delta(self) -> np.ndarray:
        """Each row's share of its step's change (the whole change in online mode)."""
        if self.mode == "online":
            return self.delta_w[self.step - 1]
        return np.where(self.updated[:, np.newaxis], self.eta * self.tx, 0.0)

    def to_frame(self) -> pd.DataFrame:
        """The trace as a pandas DataFrame, one row per pattern presentation.

        Columns: ``epoch``, ``step``, ``pattern`` (numbered from 1, as the printed
        table's ``a/a`` column and the lecture notes number the patterns: the row
        presents ``X[pattern - 1]``), ``w_1 .. w_0`` (the weights the row saw),
        ``tx_1 .. tx_0``, ``t w.x``, ``updated`` and ``dw_1 .. dw_0``: the row's
        part of the step's change. In batch mode that is ``eta * t * x`` for a
        misclassified pattern and 0 otherwise, so the ``dw`` of an epoch's rows
        add up to its update (the printed table shows only that total, on the
        epoch's first row, as the lecture notes do).

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        columns = {"epoch": self.epoch, "step": self.step, "pattern": self.pattern + 1}
        seen = self.weights[self.step - 1]
        columns.update(zip(self._names("w"), seen.T))
        columns.update(zip(self._names("tx"), self.tx.T))
        columns["t w.x"] = self.activation
        columns["updated"] = self.updated
        columns.update(zip(self._names("dw"), self._row_delta().T))
        return pd.DataFrame(columns)

    def _cells(self) -> tuple[list[str], list[list[str]]]:
        """The printed table's header and rows, every number as :func:`_fmt` writes it."""
        header = (
            ["a/a"] + self._names("w") + self._names("tx") + ["t w.x", "Update"] + self._names("Δw")
        )
        rows = []
        width = self.weights.shape[1]
        for r in range(self.step.shape[0]):
            first = r == 0 or self.step[r] != self.step[r - 1]
            shown = self.mode == "online" or first
            w = [_fmt(v) for v in self.weights[self.step[r] - 1]] if shown else [""] * width
            dw = [_fmt(v) for v in self.delta_w[self.step[r] - 1]] if shown else [""] * width
            rows.append(
                [str(self.pattern[r] + 1)]
                + w
                + [_fmt(v) for v in self.tx[r]]
                + [_fmt(self.activation[r]), "YES" if self.updated[r] else "NO"]
                + dw
            )
        return header, rows

    def table(self) -> str:
        """The lecture notes' table: ``a/a``, ``w``, ``tx``, ``t w.x``, ``Update``, ``Δw``.

        In batch mode the weights and the epoch's ``Δw`` are printed on its
        first row only.
        """
        header, rows = self._cells()
        widths = [max(len(line[c]) for line in [header] + rows) for c in range(len(header))]
        lines = [
            "  ".join(cell.rjust(wd) for cell, wd in zip(line, widths)).rstrip()
            for line in [header] + rows
        ]
        return "\n".join(lines)

    def to_latex(self) -> str:
        r"""The printed table (:meth:`table`) as a LaTeX ``tabular``, cell for cell.

        Numbers are written as the table shows them (integers as integers), in
        math mode so that a minus sign is one; the column names become
        ``$w_{1}$``, ``$tx_{1}$``, ``$t\,\mathbf{w}\cdot\mathbf{x}$`` and
        ``$\Delta w_{1}$``.

        Returns
        -------
        str

        Examples
        --------
        >>> from rosenblatt.theory.trace import trace
        >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
        >>> print(trace(X, y).to_latex().splitlines()[4])  # the first row
        1 & $0$ & $0$ & $0$ & $1$ & $1$ & $1$ & $0$ & YES & $1$ & $1$ & $1$ \\
        """
        header, rows = self._cells()
        numbers = [name not in ("a/a", "Update") for name in header]
        lines = [
            r"\begin{tabular}{" + "r" * len(header) + "}",
            r"\hline",
            " & ".join(_latex_name(name) for name in header) + r" \\",
            r"\hline",
        ]
        for row in rows:
            cells = [f"${cell}$" if number and cell else cell for cell, number in zip(row, numbers)]
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\hline", r"\end{tabular}"]
        return "\n".join(lines)

    def __str__(self) -> str:
        state = "converged" if self.converged else "not converged"
        title = (
            f"Perceptron trace ({self.mode} mode, eta={_fmt(self.eta)}, bias input "
            f"{_fmt(self.bias_input)}): {self.n_updates} update(s) in {self.n_epochs} "
            f"epoch(s), {state}"
        )
        if not self.fit_intercept:
            title = title.replace(f", bias input {_fmt(self.bias_input)}", ", no intercept")
        return title + "\n" + self.table()

    def __repr__(self) -> str:
        return (
            f"Trace(mode={self.mode!r}, n_epochs={self.n_epochs}, n_steps={self.n_steps}, "
            f"n_updates={self.n_updates}, converged={self.converged})"
        )


_CONSTRAINTS = {
    "mode": [Options(("online", "batch"))],
    "eta": [Interval(numbers.Real, 0, None, closed="neither")],
    "bias_input": [Interval(numbers.Real, None, None)],
    "shuffle": [BOOL],
    "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    "random_state": [RANDOM_STATE],
    "fit_intercept": [BOOL],
}


def trace(
    X: MatrixLike,
    y: ArrayLike,
    mode: str = "online",
    eta: float = 1.0,
    bias_input: float = TEACHING_BIAS_INPUT,
    shuffle: bool = False,
    max_iter: int = 100,
    random_state: RandomStateLike = None,
    fit_intercept: bool = True,
) -> Trace:
    """Train a perceptron step by step and keep every intermediate weight vector.

    Starting from zero weights, each pattern ``x`` (augmented with the constant
    input ``bias_input``) with target ``t`` triggers an update when
    ``t * (w . x) <= 0`` (the lecture notes' update condition, the same as a
    wrong output): ``w += eta * t * x``. In online (incremental) mode the update
    follows each such pattern; in batch mode (the lecture notes' variant) the
    epoch's updates are added up with the weights held fixed and applied at its
    end. Training stops after the first epoch without an update, or
    after ``max_iter`` epochs.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Patterns (small data: the trace keeps a dense copy of everything).
    y : array-like of shape (n_samples,)
        Two class labels; ``np.unique(y)[1]`` gets target ``t = +1``.
    mode : {"online", "batch"}, default="online"
    eta : float, default=1.0
        Learning rate (the lecture notes' epsilon), positive.
    bias_input : float, default=-1.0
        Constant appended to every pattern: the lecture notes' -1 (the
        threshold as the weight of a constant input), as ``rosenblatt trace``,
        ``plot`` and the playground use it; :class:`rosenblatt.Perceptron`'s
        ``intercept_scaling`` is +1 unless told. The intercept is
        ``w_0 * bias_input``. Must be nonzero.
    shuffle : bool, default=False
        Present the patterns in a fresh random order each epoch
        (``rng.permutation(n_samples)``, ``rng`` from ``random_state``), as
        :class:`rosenblatt.Perceptron` does with ``shuffle="full"``.
    max_iter : int, default=100
        Most epochs to run.
    random_state : int, RandomState instance, Generator or None, default=None
    fit_intercept : bool, default=True
        With False no constant is appended and there is no ``w_0``.

    Returns
    -------
    Trace

    Examples
    --------
    Rosenblatt's modified OR problem, the lecture notes' worked example, with
    their threshold input -1 (the default):

    >>> from rosenblatt.theory.trace import trace
    >>> X = [[-1, -1], [1, -1], [-1, 1], [1, 1]]
    >>> y = [-1, 1, 1, 1]
    >>> tr = trace(X, y)
    >>> print(tr.table())
    a/a  w_1  w_2  w_0  tx_1  tx_2  tx_0  t w.x  Update  Δw_1  Δw_2  Δw_0
      1    0    0    0     1     1     1      0     YES     1     1     1
      2    1    1    1     1    -1    -1     -1     YES     1    -1    -1
      3    2    0    0    -1     1    -1     -2     YES    -1     1    -1
      4    1    1   -1     1     1    -1      3      NO     0     0     0
      1    1    1   -1     1     1     1      1      NO     0     0     0
      2    1    1   -1     1    -1    -1      1      NO     0     0     0
      3    1    1   -1    -1     1    -1      1      NO     0     0     0
      4    1    1   -1     1     1    -1      3      NO     0     0     0
    >>> tr.weights[-1].tolist(), tr.n_updates, tr.n_epochs, tr.intercept
    ([1.0, 1.0, -1.0], 3, 2, 1.0)
    >>> trace(X, y, mode="batch").weights.tolist()
    [[0.0, 0.0, 0.0], [2.0, 2.0, -2.0], [2.0, 2.0, -2.0]]
    """
    check_args("trace", _CONSTRAINTS, locals())
    if not np.isfinite(eta) or not np.isfinite(bias_input) or bias_input == 0:
        raise ValueError(
            f"trace needs a finite eta and a finite, nonzero bias_input; got eta={eta!r}, "
            f"bias_input={bias_input!r}. To train without a threshold use fit_intercept=False."
        )
    X, y = checked_Xy(X, y)
    X = np.ascontiguousarray(X.toarray() if is_sparse(X) else X)
    t = signed_targets(y, "trace")
    n_samples, n_features = X.shape
    if n_samples * int(max_iter) > TRACE_MAX_PRESENTATIONS:
        raise ValueError(
            f"trace keeps a row per presentation: {n_samples} samples x max_iter={max_iter} "
            f"epochs is more than {TRACE_MAX_PRESENTATIONS:,} rows. Lower max_iter, or train "
            "with Perceptron, which keeps no table."
        )
    eta, bias_input = float(eta), float(bias_input)
    width = n_features + int(fit_intercept)

    # the engine's own epoch, recording every update and every activation; the table
    # reads the engine's record (the average as AveragedPerceptron keeps it, online)
    online = mode == "online"
    state = PrimalState.allocate(2, n_features, np.float64, averaged=online, voted=True)
    rule = PrimalRule(eta, bias_input if fit_intercept else 0.0, batch=not online)
    batch = Batch(X, (t > 0).astype(np.int64), np.ones(n_samples))
    rng = random_source(random_state) if shuffle else None  # the fixed order draws nothing
    log = EpochLog()  # every epoch's order, activations and weights, as the engine ran them

    def augmented(W, w0):
        return np.column_stack([W, w0]) if fit_intercept else W

    problem = PrimalProblem(state, rule, batch, rng, "full" if shuffle else False, log=log)
    stop = StopRule(int(max_iter), warn=False, credit=online)  # as AveragedPerceptron counts
    train(problem, stop, owner="trace")
    orders, activations = log.orders, log.activations
    ends = [np.zeros(width)] + [augmented(W, w0)[0] for W, w0 in log.weights]
    record, order = state.votes, np.concatenate(orders)
    log = record.updates(0)
    n_rows = order.shape[0]
    Xa = np.column_stack([X, np.full(n_samples, bias_input)]) if fit_intercept else X
    updated = np.zeros(n_rows, dtype=bool)
    updated[log["time"]] = True
    averaged = None
    if online:
        weights = augmented(*record.after(0, np.arange(n_rows + 1), n_features))
        delta_w = np.zeros((n_rows, width))
        delta_w[log["time"]] = log["coef"][:, np.newaxis] * Xa[log["sample"]]
        step = np.arange(1, n_rows + 1)
        at = np.arange(n_rows + 1)
        averaged = augmented(*record.after(0, at, n_features, averaged=True))
        averaged[-1] = augmented(*state.weights(averaged=True))[0]  # with the credited epochs
    else:
        weights = np.array(ends)
        delta_w = np.diff(weights, axis=0)
        step = np.repeat(np.arange(1, len(orders) + 1), n_samples)

    return Trace(
        mode=mode,
        eta=eta,
        bias_input=bias_input,
        fit_intercept=bool(fit_intercept),
        classes=np.unique(y),
        weights=weights,
        step=step,
        epoch=np.repeat(np.arange(1, len(orders) + 1), n_samples),
        pattern=order,
        tx=t[order, np.newaxis] * Xa[order],
        activation=np.concatenate(activations) + 0.0,  # + 0.0 turns -0.0 into 0.0
        updated=updated,
        delta_w=delta_w,
        averaged=averaged,
        record=record,
        counted=int(state.counts[0]) if online else None,
    )
