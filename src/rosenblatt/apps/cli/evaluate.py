"""``rosenblatt evaluate``: score a saved model on labelled data."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
from rich.markup import escape
from rich.table import Table

from ..._core.config import DEFAULT_CHUNK_SIZE
from ...exceptions import DataFileError
from ._common import (
    auto,
    console,
    err_console,
    final_estimator,
    id_columns_of,
    jsonable,
    labels_like,
    load_model,
    names_option,
    parse_label_column,
    read_model_input,
    working,
)
from ._options import (
    ChunkSize,
    Data,
    FormatForModel,
    Header,
    IdColumn,
    IgnoreForModel,
    Json,
    LabelColumn,
    Model,
    StrictFeatures,
    ZeroBased,
    more_help,
)

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike


@dataclass
class EvaluationResult:
    """Scores of a model on labelled data.

    ``precision``, ``recall`` and ``f1`` are those of the positive class
    ``classes_[1]`` for a two-class model, else macro averages over the labels.
    ``confusion_matrix[i][j]`` counts samples of ``labels[i]`` predicted as ``labels[j]``.
    ``unseen_rows`` samples carry one of the ``unseen_labels``, labels that are not among
    the model's ``classes``: it cannot predict them, so each of those samples is a mistake.
    """

    accuracy: float
    precision: float
    recall: float
    f1: float
    confusion_matrix: list
    labels: list
    average: str
    n_samples: int
    classes: list = field(default_factory=list)
    unseen_rows: int = 0
    unseen_labels: list = field(default_factory=list)

    def to_json(self) -> dict:
        """The JSON object of ``--json``: the five scores, the confusion matrix's labels and
        ``unseen_labels``: ``{"rows": count, "labels": [...]}`` of the labels the model
        never saw."""
        return {
            "accuracy": self.accuracy,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "confusion_matrix": self.confusion_matrix,
            "labels": self.labels,
            "unseen_labels": {"rows": self.unseen_rows, "labels": self.unseen_labels},
        }

    def unseen_warning(self, shown: int = 10) -> str | None:
        """What to say of the samples whose labels the model never saw (None: there are
        none); of long lists of labels, the first ``shown``.

        Examples
        --------
        >>> r = scores([0, 1, 7, 7], [0, 1, 1, 0], classes=[0, 1])
        >>> r.accuracy, r.unseen_rows, r.unseen_labels
        (0.5, 2, [7])
        >>> print(r.unseen_warning())
        2 of 4 samples carry a label the model never saw (7); it predicts only its classes
        (0, 1), so each of them counts as a mistake
        """
        if not self.unseen_rows:
            return None
        return (
            f"{self.unseen_rows} of {self.n_samples} samples carry a label the model never saw "
            f"({_listed(self.unseen_labels, shown)}); it predicts only its classes "
            f"({_listed(self.classes, shown)}), so each of them counts as a mistake"
        )


def _listed(values: Sequence[Any], shown: int) -> str:
    """Values for a message: the first ``shown`` of them, and how many in all."""
    text = ", ".join(map(str, values[:shown]))
    return text if len(values) <= shown else f"{text}, ... {len(values)} in all"


class Confusion:
    """A confusion matrix added up block by block, over the model's classes and every
    label met (sorted, as :func:`numpy.union1d` sorts them).

    Examples
    --------
    >>> c = Confusion([0, 1])
    >>> c.add(np.array([0, 1]), np.array([0, 0]))
    >>> c.add(np.array([2]), np.array([1]))
    >>> c.labels.tolist(), c.matrix.tolist()
    ([0, 1, 2], [[1, 0, 0], [1, 0, 0], [0, 1, 0]])
    """

    def __init__(self, classes):
        self.classes = np.asarray(classes)
        self.labels = np.unique(self.classes)
        self.matrix = np.zeros((self.labels.shape[0],) * 2, dtype=np.int64)

    def add(self, y_true: ArrayLike, y_pred: ArrayLike) -> None:
        """Count the pairs ``(y_true[i], y_pred[i])``."""
        labels = np.union1d(self.labels, np.union1d(y_true, y_pred))
        if labels.shape[0] != self.labels.shape[0]:  # a label not met before: a wider matrix
            at = np.searchsorted(labels, self.labels)
            matrix = np.zeros((labels.shape[0],) * 2, dtype=np.int64)
            matrix[np.ix_(at, at)] = self.matrix
            self.labels, self.matrix = labels, matrix
        k = labels.shape[0]
        pairs = np.searchsorted(labels, y_true) * k + np.searchsorted(labels, y_pred)
        self.matrix += np.bincount(pairs, minlength=k * k).reshape(k, k)

    def result(self) -> EvaluationResult:
        """The scores: of the positive class ``classes[1]`` for two classes, else macro."""
        C, labels = self.matrix, self.labels
        n = int(C.sum())
        tp = np.diag(C).astype(np.float64)
        predicted, true = C.sum(axis=0), C.sum(axis=1)
        binary = self.classes.shape[0] == 2 and labels.shape[0] == 2
        if binary:
            k = int(np.searchsorted(labels, self.classes[1]))
            tp, predicted, true = tp[k : k + 1], predicted[k : k + 1], true[k : k + 1]
        precision = _ratio(tp, predicted)
        recall = _ratio(tp, true)
        f1 = _ratio(2 * tp, predicted + true)  # 2 tp / (2 tp + fp + fn)
        rows = C.sum(axis=1)
        unseen = ~np.isin(labels, self.classes) & (rows > 0)  # true labels the model lacks
        return EvaluationResult(
            accuracy=float(np.trace(C) / n) if n else 0.0,
            precision=float(np.mean(precision)),
            recall=float(np.mean(recall)),
            f1=float(np.mean(f1)),
            confusion_matrix=jsonable(C),
            labels=jsonable(labels),
            average="binary" if binary else "macro",
            n_samples=n,
            classes=jsonable(self.classes),
            unseen_rows=int(rows[unseen].sum()),
            unseen_labels=jsonable(labels[unseen]),
        )


def _ratio(top, bottom):
    """``top / bottom``, 0 where ``bottom`` is 0 (scikit-learn's ``zero_division=0``)."""
    bottom = np.asarray(bottom, dtype=np.float64)
    return np.divide(top, bottom, out=np.zeros_like(bottom), where=bottom != 0)


def scores(y_true: ArrayLike, y_pred: ArrayLike, classes: ArrayLike) -> EvaluationResult:
    """Accuracy, precision, recall, F1 and the confusion matrix.

    Examples
    --------
    >>> r = scores(np.array([0, 1, 1, 1]), np.array([0, 1, 0, 1]), classes=[0, 1])
    >>> r.accuracy, r.precision, round(r.recall, 3), r.confusion_matrix
    (0.75, 1.0, 0.667, [[1, 0], [1, 2]])
    """
    confusion = Confusion(classes)
    confusion.add(np.asarray(y_true), np.asarray(y_pred))
    return confusion.result()


def evaluate(
    model_path: str | os.PathLike[str],
    data_path: str | os.PathLike[str],
    *,
    label_column: str | int | None = None,
    zero_based: bool | str | None = None,
    header: bool | str = "auto",
    format: str | None = None,
    chunk_size: int | None = None,
    ignore: Sequence[str] | None = None,
    id_columns: Sequence[str | int] | None = None,
    strict_features: bool = False,
) -> EvaluationResult:
    """Predict the samples of a labelled data file and score the predictions.

    The file is read a block at a time (memory holds one block) and the
    confusion matrix added up over the blocks.

    Parameters
    ----------
    model_path : str
    data_path : str
        Labelled data of the kind the model was trained on. A CSV whose header
        names the model's columns is read by name, in any order.
    label_column : str or int, default=None
        CSV: the label column when it is not the last.
    zero_based : bool, default=None
        svmlight: whether this file's indices start at 0 (default: as the
        model's training file was read).
    header : bool or "auto", default="auto"
        CSV: whether the first row is a header.
    format : {"csv", "svmlight", "tsv"}, default=None
        The data's format (default: from the extension; for standard input, ``"-"``,
        the one the model was trained on, or that the first lines are in).
    chunk_size : int, default=None
        Lines read and predicted at a time (default:
        :data:`rosenblatt._core.config.DEFAULT_CHUNK_SIZE`).
    ignore : sequence of str, default=None
        CSV: columns, by header name, that the model does not use and that are dropped.
    id_columns : sequence of str or int, default=None
        CSV: columns (header names or 0-based indices) that identify each sample; the
        model does not use them.
    strict_features : bool, default=False
        svmlight: refuse a feature index beyond the model's features (by default such
        features are ignored, as their weights are 0, and a note counts the rows).

    Returns
    -------
    EvaluationResult
        With the samples whose labels the model never saw counted (``unseen_rows``).
    """
    model, metadata = load_model(model_path, predicting=True)
    classes = final_estimator(model).classes_
    confusion = Confusion(classes)
    blocks = read_model_input(
        data_path,
        model,
        metadata,
        chunk_size=chunk_size,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        format=format,
        ignore=ignore,
        id_columns=id_columns,
        strict_features=strict_features,
    )
    for data in blocks:
        if data.y is None:
            raise DataFileError(
                f"{data.path}: no labels to evaluate against; give a file with a "
                "label on every line (or use `rosenblatt predict`)"
            )
        confusion.add(labels_like(data.y, classes, data.path), model.predict(data.X))
    return confusion.result()


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


# evaluate's own words on the options it shares
_Data = Annotated[str, more_help(Data, "Labelled: the samples the model is scored on.")]
_Json = Annotated[
    bool,
    more_help(
        Json,
        "Its keys: accuracy, precision, recall, f1, confusion_matrix, labels (the classes of "
        "its rows and columns, in order) and unseen_labels "
        '({"rows": N, "labels": [...]}: those the model never saw).',
    ),
]


def command(
    data: _Data,
    model: Model,
    as_json: _Json = False,
    label_column: LabelColumn = None,
    zero_based: ZeroBased = None,
    header: Header = None,
    data_format: FormatForModel = None,
    chunk_size: ChunkSize = DEFAULT_CHUNK_SIZE,
    ignore: IgnoreForModel = None,
    id_column: IdColumn = None,
    strict_features: StrictFeatures = False,
) -> None:
    """Score a saved model on labelled DATA: accuracy, precision, recall, F1, confusion matrix.

    A CSV file whose header names the model's columns may give them in any order. Samples
    whose labels the model never saw are counted on standard error.
    """
    _run(**locals())


def _run(
    data: str,
    model: str,
    *,
    as_json: bool,
    label_column: str | None,
    zero_based: bool | None,
    header: bool | None,
    data_format: str | None,
    chunk_size: int,
    ignore: str | None,
    id_column: list[str] | None,
    strict_features: bool,
) -> None:
    """What ``rosenblatt evaluate`` does with its options: score the model, then print the
    scores (tables, or ``as_json``) and warn of labels it never saw."""
    with working(f"evaluating {model} on {data}..."):
        result = evaluate(
            model,
            data,
            label_column=parse_label_column(label_column),
            zero_based=zero_based,
            header=auto(header),
            format=data_format,
            chunk_size=chunk_size,
            ignore=names_option(ignore),
            id_columns=id_columns_of(id_column),
            strict_features=strict_features,
        )
    warning = result.unseen_warning()
    if warning is not None:
        err_console.print(f"[yellow]warning:[/] {escape(warning)}")
    if as_json:
        print(json.dumps(result.to_json()))
        return
    console.print(score_table(result))
    console.print(confusion_table(result))
