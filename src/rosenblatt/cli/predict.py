"""``rosenblatt predict``: label the samples of a data file with a saved model."""

from __future__ import annotations

import json
from dataclasses import dataclass

import typer

from ._common import (
    auto,
    console,
    header_option,
    jsonable,
    load_model,
    parse_label_column,
    read_model_input,
    zero_based_option,
)


@dataclass
class PredictResult:
    """Predicted labels, one per sample of the data file."""

    labels: list
    data_path: str
    model_path: str


def predict(
    model_path, data_path, *, label_column=None, zero_based=None, header="auto"
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

    Returns
    -------
    PredictResult
    """
    model, metadata = load_model(model_path, predicting=True)
    data = read_model_input(
        data_path, model, metadata, label_column=label_column, zero_based=zero_based, header=header
    )
    return PredictResult(
        labels=jsonable(model.predict(data.X)), data_path=data.path, model_path=str(model_path)
    )


def command(
    data: str = typer.Argument(
        ..., metavar="DATA", help="Samples to label (.csv, .svm/.libsvm/.svmlight, .tsv)."
    ),
    model: str = typer.Option(..., "--model", "-m", help="A model saved by `rosenblatt train`."),
    output: str | None = typer.Option(
        None, "--output", "-o", help="Write the labels to this file instead of stdout."
    ),
    as_json: bool = typer.Option(False, "--json", help='Print {"predictions": [...]} as JSON.'),
    label_column: str | None = typer.Option(
        None, "--label-column", help="CSV: the label column, if the file has one that is not last."
    ),
    zero_based: bool | None = zero_based_option(),
    header: bool | None = header_option(),
) -> None:
    """Predict a label for every sample of DATA, one per line."""
    label = parse_label_column(label_column)
    result = predict(model, data, label_column=label, zero_based=zero_based, header=auto(header))
    if as_json:
        text = json.dumps({"predictions": result.labels})
    else:
        text = "\n".join(str(label) for label in result.labels)
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        if not as_json:
            console.print(f"wrote {len(result.labels)} predictions to {output}")
    else:
        print(text)
