"""``rosenblatt predict``: label the samples of a data file with a saved model."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Annotated

from ..._core.config import DEFAULT_CHUNK_SIZE
from ._common import (
    auto,
    err_console,
    id_columns_of,
    jsonable,
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
    Output,
    Proba,
    Scores,
    StrictFeatures,
    ZeroBased,
    more_help,
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
    ids: list | None = None
    id_names: list | None = None


def predict_blocks(
    model_path: str | os.PathLike[str],
    data_path: str | os.PathLike[str],
    *,
    label_column: str | int | None = None,
    zero_based: bool | str | None = None,
    header: bool | str = "auto",
    scores: bool = False,
    format: str | None = None,
    proba: bool = False,
    chunk_size: int | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
    strict_features: bool = False,
) -> Iterator[PredictResult]:
    """Predict the samples of ``data_path`` a block at a time, as they are read.

    Parameters are those of :func:`predict`.

    Yields
    ------
    PredictResult
        The labels of one block of samples (and their scores, probabilities and
        identifiers if asked), in the file's order; ``classes`` is set when they
        are, ``id_names`` when the identifiers' columns have header names.
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
    classes = jsonable(model.classes_) if scores or proba else None
    for data in read_model_input(
        data_path,
        model,
        metadata,
        chunk_size=chunk_size,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        format=format,
        id_columns=id_columns,
        ignore=ignore,
        strict_features=strict_features,
    ):
        result = PredictResult(
            labels=jsonable(model.predict(data.X)),
            data_path=data.path,
            model_path=str(model_path),
            classes=classes,
            ids=data.aside if id_columns else None,
            id_names=data.aside_names,
        )
        if scores:
            result.scores = jsonable(model.decision_function(data.X))
        if proba:
            result.proba = jsonable(model.predict_proba(data.X))
        yield result


def predict(
    model_path: str | os.PathLike[str],
    data_path: str | os.PathLike[str],
    *,
    label_column: str | int | None = None,
    zero_based: bool | str | None = None,
    header: bool | str = "auto",
    scores: bool = False,
    format: str | None = None,
    proba: bool = False,
    chunk_size: int | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
    strict_features: bool = False,
) -> PredictResult:
    """Predict the label of every sample in ``data_path`` (its labels, if any, are ignored).

    Parameters
    ----------
    model_path : str
        A model saved by ``rosenblatt train`` or :func:`rosenblatt.save`.
    data_path : str
        Data of the kind the model was trained on; the label column may be missing.
        A CSV whose header names the model's columns is read by name, in any order.
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
        The data's format (default: from the extension; for standard input, ``"-"``,
        the one the model was trained on, or that the first lines are in).
    chunk_size : int, default=None
        Lines read and predicted at a time (default:
        :data:`rosenblatt._core.config.DEFAULT_CHUNK_SIZE`).
    id_columns : sequence of str or int, default=None
        CSV: columns (header names or 0-based indices) that identify each sample,
        returned as text in ``ids`` (a list per sample); the model does not use them.
    ignore : sequence of str, default=None
        CSV: columns, by header name, that the model does not use and that are dropped.
    strict_features : bool, default=False
        svmlight: refuse a feature index beyond the model's features (by default such
        features are ignored, as their weights are 0, and a note counts the rows).

    Returns
    -------
    PredictResult
    """
    blocks = predict_blocks(
        model_path,
        data_path,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        scores=scores,
        format=format,
        proba=proba,
        chunk_size=chunk_size,
        id_columns=id_columns,
        ignore=ignore,
        strict_features=strict_features,
    )
    result = PredictResult(
        labels=[],
        data_path=str(data_path),
        model_path=str(model_path),
        scores=[] if scores else None,
        proba=[] if proba else None,
        ids=[] if id_columns else None,
    )
    for block in blocks:
        result.data_path, result.classes = block.data_path, block.classes
        result.id_names = block.id_names
        result.labels += block.labels
        if result.ids is not None and block.ids is not None:
            result.ids += block.ids
        if result.scores is not None and block.scores is not None:
            result.scores += block.scores
        if result.proba is not None and block.proba is not None:
            result.proba += block.proba
    return result


def _text(result: PredictResult) -> str:
    """One line per sample: the label, then its decision value(s), then its probabilities,
    tab-separated; with identifiers, CSV records that start with them."""
    if result.scores is None and result.proba is None and result.ids is None:
        return "\n".join(map(str, result.labels))
    lines = []
    for i, label in enumerate(result.labels):
        values = []
        if result.scores is not None:
            score = result.scores[i]
            values += score if isinstance(score, list) else [score]
        if result.proba is not None:
            values += result.proba[i]
        cells = [str(label), *(f"{value:.10g}" for value in values)]
        if result.ids is None:
            lines.append("\t".join(cells))
        else:
            lines.append(_csv_record([*result.ids[i], *cells]))
    return "\n".join(lines)


def _csv_record(cells: list[str]) -> str:
    """One CSV record (RFC 4180 quoting, as the readers read it), without its line break."""
    import csv
    import io

    out = io.StringIO()
    # csv quotes a field that holds a character of the line terminator: both line breaks
    csv.writer(out, lineterminator="\r\n").writerow(cells)
    return out.getvalue()[:-2]


def _column_names(result: PredictResult, ids: Sequence[str] = ()) -> list[str]:
    """What the columns of the text output hold, in order (``ids``: the identifiers')."""
    names = [*ids, "label"]
    classes = result.classes or []
    if result.scores is not None:
        binary = not isinstance(result.scores[0], list) if result.scores else True
        names += ["score"] if binary else [f"score({c})" for c in classes]
    if result.proba is not None:
        names += [f"P({c})" for c in classes]
    return names


# predict's own words on the options it shares
_Data = Annotated[str, more_help(Data, "The samples to label.")]
_Output = Annotated[
    str | None,
    more_help(
        Output,
        "The labels go there (- : standard output, as without it); it appears once complete.",
    ),
]
_Json = Annotated[
    bool,
    more_help(
        Json,
        'It is {"predictions": [...]}, written once all of DATA is read (the default lines come '
        "as each block is predicted).",
    ),
]
_LabelColumn = Annotated[
    str | None, more_help(LabelColumn, "Give it if DATA has one that is not the last.")
]
_IdColumn = Annotated[
    list[str] | None,
    more_help(
        IdColumn,
        "Written beside each prediction: the output is then CSV records, with a header line "
        "when DATA has one.",
    ),
]
_ChunkSize = Annotated[
    int,
    more_help(
        ChunkSize,
        "Each block is predicted as it is read, and standard input is also answered wherever "
        "it pauses, so that `predict -` works as a filter.",
    ),
]


def command(
    data: _Data,
    model: Model,
    output: _Output = None,
    as_json: _Json = False,
    scores: Scores = False,
    proba: Proba = False,
    label_column: _LabelColumn = None,
    id_column: _IdColumn = None,
    ignore: IgnoreForModel = None,
    zero_based: ZeroBased = None,
    header: Header = None,
    data_format: FormatForModel = None,
    chunk_size: _ChunkSize = DEFAULT_CHUNK_SIZE,
    strict_features: StrictFeatures = False,
) -> None:
    """Predict a label for every sample of DATA, one per line, as DATA is read.

    A CSV file whose header names the model's columns may give them in any order.
    Standard input (DATA is -) is read in the format the model was trained on, or,
    when the model cannot tell, in the one its first lines are in.
    """
    _run(**locals())


def _run(
    data: str,
    model: str,
    *,
    output: str | None,
    as_json: bool,
    scores: bool,
    proba: bool,
    label_column: str | None,
    id_column: list[str] | None,
    ignore: str | None,
    zero_based: bool | None,
    header: bool | None,
    data_format: str | None,
    chunk_size: int,
    strict_features: bool,
) -> None:
    """What ``rosenblatt predict`` does with its options: write the predictions as DATA is
    read, to standard output or, once complete, to ``output``."""
    ids = id_columns_of(id_column)
    blocks = predict_blocks(
        model,
        data,
        label_column=parse_label_column(label_column),
        zero_based=zero_based,
        header=auto(header),
        scores=scores,
        format=data_format,
        proba=proba,
        chunk_size=chunk_size,
        id_columns=ids,
        ignore=names_option(ignore),
        strict_features=strict_features,
    )
    to_file = bool(output) and output != "-"
    # a spinner unless the labels go to the terminal, where it would mix with them
    busy = working(f"predicting {data}...") if to_file or not sys.stdout.isatty() else nullcontext()
    if to_file:
        from ..._core.files import check_writable, open_atomically

        assert output is not None  # to_file says so; for mypy
        check_writable(output)
        with busy, open_atomically(output) as handle:
            count = _write(blocks, handle, as_json, scores, proba, ids)
        err_console.print(f"wrote {count} predictions to {output}", markup=False)
    else:
        with busy:
            _write(blocks, sys.stdout.buffer, as_json, scores, proba, ids)


def _write(blocks, out, as_json, scores, proba, ids) -> int:
    """Write the blocks' predictions to binary ``out`` (lines as they come, flushed; or JSON
    at the end); the number of samples. ``ids``: the identifier columns asked for."""
    count, named = 0, not (scores or proba or ids)
    labels: list = []
    all_scores: list = []
    all_proba: list = []
    all_ids: list = []
    classes = id_names = None
    for block in blocks:
        count += len(block.labels)
        if as_json:
            classes, id_names = block.classes, block.id_names
            labels += block.labels
            all_scores += block.scores or []
            all_proba += block.proba or []
            all_ids += block.ids or []
            continue
        if not named and block.labels:
            named = True
            if block.id_names is not None:  # CSV records under the input's kind of header
                header = _csv_record(_column_names(block, block.id_names))
                out.write((header + "\n").encode("utf-8"))
            else:
                given = [f"--id-column {c}" for c in ids or ()]
                err_console.print(
                    f"columns: {', '.join(_column_names(block, given))}", markup=False
                )
        if block.labels:
            out.write((_text(block) + "\n").encode("utf-8"))
            out.flush()  # each answer before the next block is read: a filter's behaviour
    if as_json:
        payload: dict = {"predictions": labels}
        if scores or proba:
            payload["classes"] = classes
        if scores:
            payload["scores"] = all_scores
        if proba:
            payload["probabilities"] = all_proba
        if ids:
            payload["id_columns"] = id_names or ids
            payload["ids"] = all_ids
        out.write((json.dumps(payload) + "\n").encode("utf-8"))
        out.flush()
    return count
