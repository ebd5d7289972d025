"""``rosenblatt evaluate``: score a saved model on labelled data."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import typer
from rich.table import Table

from ..exceptions import DataFileError
from ._common import (
    auto,
    console,
    final_estimator,
    format_option,
    header_option,
    jsonable,
    labels_like,
    load_model,
    parse_label_column,
    read_model_input,
    working,
    zero_based_option,
)


@dataclass
class EvaluationResult:
    """Scores of a model on labelled data.

    ``precision``, ``recall`` and ``f1`` are those of the positive class
    ``classes_[1]`` for a two-class model, else macro averages over the labels.
    ``confusion_matrix[i][j]`` counts samples of ``labels[i]`` predicted as ``labels[j]``.
    """

    accuracy: float
    precision: float
    recall: float
    f1: float
    confusion_matrix: list
    labels: list
    average: str
    n_samples: int

    def to_json(self) -> dict:
        """The JSON object of ``--json``: exactly the five scores."""
        return {
            "accuracy": self.accuracy,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "confusion_matrix": self.confusion_matrix,
        }


def scores(y_true, y_pred, classes) -> EvaluationResult:
    """Accuracy, precision, recall, F1 and the confusion matrix.

    Examples
    --------
    >>> r = scores(np.array([0, 1, 1, 1]), np.array([0, 1, 0, 1]), classes=[0, 1])
    >>> r.accuracy, r.precision, round(r.recall, 3), r.confusion_matrix
    (0.75, 1.0, 0.667, [[1, 0], [1, 2]])
    """
    from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

    classes = np.asarray(classes)
    labels = np.union1d(classes, np.union1d(y_true, y_pred))
    if classes.shape[0] == 2 and labels.shape[0] == 2:
        average, pos_label = "binary", classes[1]
    else:
        average, pos_label = "macro", 1
    precision, recall, f1, _ = precision_recall_fscore_support(
        y_true,
        y_pred,
        labels=labels if average == "macro" else None,
        average=average,
        pos_label=pos_label,
        zero_division=0.0,
    )
    return EvaluationResult(
        accuracy=float(np.mean(y_true == y_pred)),
        precision=float(precision),
        recall=float(recall),
        f1=float(f1),
        confusion_matrix=jsonable(confusion_matrix(y_true, y_pred, labels=labels)),
        labels=jsonable(labels),
        average="binary" if average == "binary" else "macro",
        n_samples=int(y_true.shape[0]),
    )


def evaluate(
    model_path, data_path, *, label_column=None, zero_based=None, header="auto", format=None
) -> EvaluationResult:
    """Predict the samples of a labelled data file and score the predictions.

    Parameters
    ----------
    model_path : str
    data_path : str
        Labelled data of the kind the model was trained on.
    label_column : str or int, default=None
        CSV: the label column when it is not the last.
    zero_based : bool, default=None
        svmlight: whether this file's indices start at 0 (default: as the
        model's training file was read).
    header : bool or "auto", default="auto"
        CSV: whether the first row is a header.
    format : {"csv", "svmlight", "tsv"}, default=None
        The data's format (default: from the extension); needed for standard input (``"-"``).

    Returns
    -------
    EvaluationResult
    """
    model, metadata = load_model(model_path)
    data = read_model_input(
        data_path,
        model,
        metadata,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        format=format,
    )
    if data.y is None:
        raise DataFileError(
            f"{data.path}: no labels to evaluate against; give a file with a "
            "label on every line (or use `rosenblatt predict`)"
        )
    classes = final_estimator(model).classes_
    return scores(labels_like(data.y, classes, data.path), model.predict(data.X), classes)


def score_table(result: EvaluationResult) -> Table:
    table = Table(title=f"{result.n_samples} samples", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    if result.average == "binary":  # precision, recall and F1 of the positive class
        which = f" (positive class: {result.labels[1]})"
    else:
        which = f" (macro average over {len(result.labels)} classes)"
    for name in ("accuracy", "precision", "recall", "f1"):
        table.add_row(name + ("" if name == "accuracy" else which), f"{getattr(result, name):.4f}")
    return table


def confusion_table(result: EvaluationResult) -> Table:
    table = Table(title="confusion matrix (rows: true label, columns: predicted)")
    table.add_column("true \\ predicted", style="bold")
    for label in result.labels:
        table.add_column(str(label), justify="right")
    for label, row in zip(result.labels, result.confusion_matrix):
        table.add_row(str(label), *(str(v) for v in row))
    return table


def command(
    data: str = typer.Argument(
        ...,
        metavar="DATA",
        help="Labelled data (.csv, .svm/.libsvm/.svmlight, .tsv; - : standard input).",
    ),
    model: str = typer.Option(..., "--model", "-m", help="A model saved by `rosenblatt train`."),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print a JSON object with accuracy, precision, recall, f1 and confusion_matrix.",
    ),
    label_column: str | None = typer.Option(
        None, "--label-column", help="CSV: label column by header name or 0-based index."
    ),
    zero_based: bool | None = zero_based_option(),
    header: bool | None = header_option(),
    data_format: str | None = format_option(),
) -> None:
    """Score a saved model on labelled DATA: accuracy, precision, recall, F1, confusion matrix."""
    with working(f"evaluating {model} on {data}..."):
        result = evaluate(
            model,
            data,
            label_column=parse_label_column(label_column),
            zero_based=zero_based,
            header=auto(header),
            format=data_format,
        )
    if as_json:
        print(json.dumps(result.to_json()))
        return
    console.print(score_table(result))
    console.print(confusion_table(result))
