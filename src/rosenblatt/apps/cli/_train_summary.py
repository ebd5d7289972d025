"""What ``rosenblatt train`` reports: :class:`TrainResult`, its table and JSON, and the
training accuracy (on a bounded sample of the rows for a voted model)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from rich.table import Table

from ._common import calibration_of, final_estimator, jsonable

#: Most (row, stored update) pairs the summary's training accuracy of a voted model
#: may score. A voted model scores a row against every update it stored, so all n
#: training rows cost n * updates, and the updates grow with the epochs: 1000 epochs
#: on spambase (4601 rows, 522,621 updates) made 2.4e9 pairs, 23 s after 0.4 s of
#: training on two cores. Training knows only the mistakes of the vector in force
#: at each presentation, not how the vote does on the training rows; so the summary
#: scores a seeded random sample of the rows within this budget and says how many
#: (there 95 rows in 0.4 s, as long as the epochs took), and all of them whenever
#: they fit (spambase with the default tol: 4601 rows x 6545 updates).
VOTE_SCORE_PAIRS = 50_000_000


@dataclass
class TrainResult:
    """What :func:`train` did."""

    model: Any
    model_path: str
    algorithm: str
    data_format: str
    n_samples: int
    n_features: int
    classes: list
    train_accuracy: float | None
    seconds: float
    epochs: int | None = None
    mistakes: int | None = None
    mistakes_per_epoch: list | None = None
    converged: bool | None = None
    notes: list = field(default_factory=list)
    scored_rows: int | None = None
    """Rows the training accuracy was measured on (None: not measured); fewer than
    ``n_samples`` for a voted model with many updates (:data:`VOTE_SCORE_PAIRS`)."""


def vote_updates(model: Any) -> int:
    """The stored updates a voted model scores each row against, over every voter
    (and every calibration fold): its ``n_vectors_`` less the zero vectors; 0 for a
    model that does not vote."""
    parts = getattr(model, "estimators_", None) if hasattr(model, "calibrators_") else None
    total = 0
    for part in parts or [model]:
        total += sum(n - 1 for n in getattr(final_estimator(part), "n_vectors_", []))
    return total


def scored_rows(model: Any, n_samples: int, seed: int = 0) -> np.ndarray | None:
    """The training rows the summary scores: None for all of them, else a sorted
    seeded random sample of as many as :data:`VOTE_SCORE_PAIRS` allows (at least
    one). Random rather than the first rows: data files often come grouped by class.

    Examples
    --------
    >>> from rosenblatt.apps.cli.train import make_estimator
    >>> scored_rows(make_estimator("perceptron"), 10) is None
    True
    """
    updates = vote_updates(model)
    if updates * n_samples <= VOTE_SCORE_PAIRS:
        return None
    n_rows = max(1, VOTE_SCORE_PAIRS // updates)
    return np.sort(np.random.default_rng(seed).choice(n_samples, n_rows, replace=False))


def training_accuracy(
    model: Any, X: Any, y: np.ndarray, rows: np.ndarray | None = None
) -> tuple[float, int]:
    """``(accuracy, rows scored)`` of ``model`` on the training data, or on ``rows``."""
    if rows is not None:
        X, y = rows_of(X, rows), y[rows]
    with warnings.catch_warnings():  # a model given column names (name_features): X is its own
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        return float(np.mean(model.predict(X) == y)), len(y)


def rows_of(X: Any, rows: np.ndarray) -> Any:
    """The ``rows`` (indices) of features read by :func:`rosenblatt.data.io.read_data`: an
    array, a sparse matrix or a list of texts."""
    return [X[i] for i in rows] if isinstance(X, list) else X[rows]


def summary_table(result: TrainResult) -> Table:
    title = f"Trained {type(final_estimator(result.model)).__name__}"
    if calibration_of(result.model) is not None:
        title += f" (calibrated: {calibration_of(result.model)})"
    table = Table(title=title, show_header=False)
    table.add_column(style="bold")
    table.add_column()
    classes = ", ".join(str(c) for c in result.classes[:10])
    if len(result.classes) > 10:
        classes += f", ... ({len(result.classes)} in all)"
    rows = [
        (
            "data",
            f"{result.n_samples} samples x {result.n_features} features ({result.data_format})",
        ),
        ("classes", classes),
        ("epochs", "-" if result.epochs is None else str(result.epochs)),
        ("mistakes", "-" if result.mistakes is None else str(result.mistakes)),
        ("converged", {True: "yes", False: "no", None: "-"}[result.converged]),
        ("training accuracy", _accuracy_text(result)),
        ("time", f"{result.seconds:.3f} s"),
        ("model", result.model_path),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


def _accuracy_text(result: TrainResult) -> str:
    if result.train_accuracy is None:
        if result.algorithm == "voted":  # streamed: see train_streamed
            return "- (voted, streamed: `rosenblatt evaluate` scores it)"
        return "-"
    text = f"{result.train_accuracy:.4f}"
    if result.scored_rows is not None and result.scored_rows < result.n_samples:
        text += f" on a sample of {result.scored_rows} rows (voting costs a pass over every update)"
    return text


def summary_json(result: TrainResult) -> dict:
    """What ``train --json`` prints: every field of ``result`` but the model itself,
    and the classifier's class name (``estimator``)."""
    summary = {
        f.name: jsonable(getattr(result, f.name)) for f in fields(result) if f.name != "model"
    }
    summary["estimator"] = type(final_estimator(result.model)).__name__
    summary["calibrated"] = calibration_of(result.model)
    return summary
