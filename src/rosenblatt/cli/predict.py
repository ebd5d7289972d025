"""``rosenblatt predict``: label the samples of a data file with a saved model."""

from __future__ import annotations

import json
from dataclasses import dataclass

import typer

from ._common import (
    auto,
    err_console,
    format_option,
    header_option,
    jsonable,
    load_model,
    parse_label_column,
    read_model_input,
    working,
    zero_based_option,
)


@dataclass
class PredictResult:
    """Predicted labels, one per sample of the data file, and their decision values or
    probabilities if asked."""

    labels: list
    data_path: str
    model_path: str
    scores: list | None = None
    classes: list | None = None
    proba: list | None = None


def predict(
    model_path,
    data_path,
    *,
    label_column=None,
    zero_based=None,
    header="auto",
    scores=False,
    format=None,
    proba=False,
) -> PredictResult:
    """Predict the label of every sample in ``data_path`` (its labels, if any, are ignored).

    Parameters
    ----------
    model_path : str
        A model saved by ``rosenblatt train`` or :func:`rosenblatt.save`.
    data_path : str
        Data of the kind the model was trained on; the label column may be missing.
    label_column : str or int, default=None
        CSV with labels: the label column when it is not the last.
    zero_based : bool, default=None
        svmlight: whether this file's indices start at 0 (default: as the
        model's training file was read).
    header : bool or "auto", default="auto"
        CSV: whether the first row is a header.
    scores : bool, default=False
        Also return ``decision_function``: one value per sample for two classes
        (positive favours the second class), one per class otherwise.
    proba : bool, default=False
        Also return ``predict_proba``, one probability per class (a model trained
        with ``--calibrate``, or :func:`rosenblatt.calibrated`).
    format : {"csv", "svmlight", "tsv"}, default=None
        The data's format (default: from the extension); needed for standard input (``"-"``).

    Returns
    -------
    PredictResult
    """
    model, metadata = load_model(model_path, predicting=True)
    if scores and not hasattr(model, "decision_function"):
        raise ValueError(
            f"{model_path}: a calibrated model gives probabilities, not scores; ask for --proba"
        )
    if proba and not hasattr(model, "predict_proba"):
        raise ValueError(
            f"{model_path}: this model gives scores, not probabilities; train it with "
            "--calibrate sigmoid (or isotonic) to get probabilities, or ask for --scores"
        )
    data = read_model_input(
        data_path,
        model,
        metadata,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        format=format,
    )
    result = PredictResult(
        labels=jsonable(model.predict(data.X)), data_path=data.path, model_path=str(model_path)
    )
    if scores or proba:
        result.classes = jsonable(model.classes_)
    if scores:
        result.scores = jsonable(model.decision_function(data.X))
    if proba:
        result.proba = jsonable(model.predict_proba(data.X))
    return result


def _text(result: PredictResult) -> str:
    """One line per sample: the label, then its decision value(s), then its probabilities,
    tab-separated."""
    lines = []
    for i, label in enumerate(result.labels):
        values = []
        if result.scores is not None:
            score = result.scores[i]
            values += score if isinstance(score, list) else [score]
        if result.proba is not None:
            values += result.proba[i]
        lines.append("\t".join([str(label), *(f"{value:.10g}" for value in values)]))
    return "\n".join(lines)


def _column_names(result: PredictResult) -> str:
    """What the columns of the text output hold, in order."""
    names = ["label"]
    if result.scores is not None:
        binary = not isinstance(result.scores[0], list) if result.scores else True
        names += ["score"] if binary else [f"score({c})" for c in result.classes]
    if result.proba is not None:
        names += [f"P({c})" for c in result.classes]
    return ", ".join(names)


def command(
    data: str = typer.Argument(
        ...,
        metavar="DATA",
        help="Samples to label (.csv, .svm/.libsvm/.svmlight, .tsv; - : standard input).",
    ),
    model: str = typer.Option(..., "--model", "-m", help="A model saved by `rosenblatt train`."),
    output: str | None = typer.Option(
        None, "--output", "-o", help="Write the labels to this file (- : standard output)."
    ),
    as_json: bool = typer.Option(False, "--json", help='Print {"predictions": [...]} as JSON.'),
    scores: bool = typer.Option(
        False,
        "--scores",
        help="Also print the decision values: one per sample for two classes (positive: the "
        "second class), one per class otherwise.",
    ),
    proba: bool = typer.Option(
        False,
        "--proba",
        help="Also print the probability of every class (a model trained with --calibrate); "
        "the columns are named on standard error.",
    ),
    label_column: str | None = typer.Option(
        None, "--label-column", help="CSV: the label column, if the file has one that is not last."
    ),
    zero_based: bool | None = zero_based_option(),
    header: bool | None = header_option(),
    data_format: str | None = format_option(),
) -> None:
    """Predict a label for every sample of DATA, one per line."""
    label = parse_label_column(label_column)
    with working(f"predicting {data}..."):
        result = predict(
            model,
            data,
            label_column=label,
            zero_based=zero_based,
            header=auto(header),
            scores=scores,
            format=data_format,
            proba=proba,
        )
    if as_json:
        payload = {"predictions": result.labels}
        if scores or proba:
            payload["classes"] = result.classes
        if scores:
            payload["scores"] = result.scores
        if proba:
            payload["probabilities"] = result.proba
        text = json.dumps(payload)
    else:
        text = _text(result)
        if scores or proba:
            err_console.print(f"columns: {_column_names(result)}", markup=False)
    if output and output != "-":
        from .._files import write_atomically

        write_atomically(output, (text + "\n").encode("utf-8"))
        err_console.print(f"wrote {len(result.labels)} predictions to {output}")
    else:
        print(text)
