"""A saved model and the data it reads: what the command line and the service share.

Loading a model file with its metadata, telling the format its input is in, reading that
input (a file, standard input or bytes at hand) as the model was trained on it, and
numpy values as plain JSON ones. Neither typer nor rich: the service
(:mod:`rosenblatt.apps.serve`) uses these as the commands do.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import DataFileError

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike

    from ..data.readers import Data

__all__ = [
    "calibration_of",
    "final_estimator",
    "input_format",
    "is_text_model",
    "jsonable",
    "labels_like",
    "load_model",
    "model_columns",
    "read_model_input",
    "trained_format",
]


def jsonable(value: Any) -> Any:
    """numpy scalars and arrays as plain Python values for ``json.dumps``."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def _uncalibrated(model):
    """A calibrated model's (first) fitted classifier or pipeline; any other model itself."""
    fitted = getattr(model, "estimators_", None) if hasattr(model, "calibrators_") else None
    return fitted[0] if fitted else model


def is_text_model(model: Any) -> bool:
    """A pipeline that starts with a text vectorizer (trained on a .tsv file)."""
    steps = getattr(_uncalibrated(model), "steps", None)
    return bool(steps) and hasattr(steps[0][1], "build_analyzer")  # type: ignore[index]


def final_estimator(model: Any) -> Any:
    """The classifier itself (the last step of a pipeline, calibrated or not: a model
    calibrated online, its estimator, which learnt the same epochs)."""
    model = _uncalibrated(model)
    steps = getattr(model, "steps", None)
    final = steps[-1][1] if steps else model
    return final.estimator_ if calibration_of(final) == "online" else final


def calibration_of(model: Any) -> str | None:
    """How a model (or the last step of a pipeline) was calibrated: ``"sigmoid"``,
    ``"isotonic"``, ``"online"``, or None."""
    steps = getattr(model, "steps", None)
    final = steps[-1][1] if steps else model
    if hasattr(final, "calibrators_") or hasattr(final, "platt_"):
        return str(final.method)
    return None


def load_model(
    path: str | os.PathLike[str], *, predicting: bool = False
) -> tuple[Any, dict[str, Any]]:
    """Load a model file; return ``(model, metadata)`` (metadata may be empty).

    ``predicting``: a linear model comes back as a numpy-only
    :class:`~rosenblatt.engine.numpy_decision.LinearPredictor` (the same predictions, without
    importing scikit-learn, scipy or numba).
    """
    import warnings

    from .._core.files import check_readable
    from ..persistence import load, load_predictor, read_manifest

    check_readable(path, what="model file", fix="train one with `rosenblatt train DATA -m PATH`")
    model = load_predictor(path) if predicting else load(path)
    # a model trained on named columns: the commands match a file's columns to them by
    # name (read_model_input) and hand the model arrays in its order, which scikit-learn
    # would warn about
    warnings.filterwarnings("ignore", message="X does not have valid feature names")
    metadata = read_manifest(path).get("metadata") or {}
    return model, metadata if isinstance(metadata, dict) else {}


def model_columns(model: Any, metadata: dict[str, Any]) -> tuple[list[str] | None, str | None]:
    """``(feature names, label name)`` the model was trained on (None where unknown)."""
    names = metadata.get("feature_names")
    if names is None:
        names = getattr(_uncalibrated(model), "feature_names_in_", None)
        if names is None:
            names = getattr(final_estimator(model), "feature_names_in_", None)
    label = metadata.get("label_name")
    return (None if names is None else [str(n) for n in names]), label


def trained_format(model: Any, metadata: dict[str, Any]) -> str | None:
    """The format of the data the model was trained on: ``"csv"``, ``"svmlight"`` or
    ``"text"``, or None where it cannot tell.

    A model trained by ``rosenblatt train`` records its data's format in its file;
    one trained from Python tells by what it was fitted on: text (a vectorizer's
    pipeline), or named columns (a DataFrame's, read from CSV); a model fitted on
    an array does not tell.
    """
    recorded = metadata.get("data_format")
    if recorded in ("csv", "svmlight", "text"):
        return recorded
    if is_text_model(model):
        return "text"
    if model_columns(model, metadata)[0] is not None:
        return "csv"
    return None


def input_format(
    path: str | os.PathLike[str],
    format: str | None,
    model: Any,
    metadata: dict[str, Any],
    *,
    body: bytes | None = None,
) -> tuple[str, bytes]:
    """The format to read a model's input in, and the bytes of standard input read to tell.

    ``format`` when given; else the file's extension; else (standard input, or a name
    like ``iris.data``) the format the model was trained on (:func:`trained_format`);
    else the format that the input's first lines are in
    (:func:`~rosenblatt.data.readers.sniff_format`, which says why when it cannot tell).
    ``body``: the input's bytes at hand, ``path`` only naming them: ``format``, else the
    model's.
    """
    from ..data.readers import check_file, format_of, sniff_format

    if body is not None:
        known = format or trained_format(model, metadata)
        if known is None:
            raise DataFileError(
                f"{path}: the model does not say what format its data is in; name the format"
            )
        return format_of(path, known), b""
    check_file(path)  # a folder or a missing file, before its name is looked at
    if format is not None:
        return format_of(path, format), b""
    try:
        return format_of(path), b""
    except DataFileError:  # standard input, or an extension that does not tell
        pass
    known = trained_format(model, metadata)
    if known is not None:
        return known, b""
    return sniff_format(path)


def _centres(model) -> bool:
    """Whether the model subtracts a mean from each feature (which sparse rows cannot take)."""
    model = _uncalibrated(model)
    steps = getattr(model, "steps", None)
    first = steps[0][1] if steps else model
    return getattr(first, "mean_", None) is not None and getattr(first, "with_mean", True)


def read_model_input(
    path: str | os.PathLike[str],
    model: Any,
    metadata: dict[str, Any],
    *,
    chunk_size: int | None = None,
    label_column: str | int | None = None,
    zero_based: bool | str | None = None,
    header: bool | str = "auto",
    format: str | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
    body: bytes | None = None,
    strict_features: bool = False,
) -> Iterator[Data]:
    """Read a data file for a trained model, a block of ``chunk_size`` lines at a time.

    Yields a :class:`~rosenblatt.data.readers.Data` per block (the label column may be
    missing); memory is that of one block, and standard input is read as it comes
    (:class:`~rosenblatt.data.readers.Stream`). Checks that the file's kind suits the
    model (text for a text model, numbers otherwise; dense rows for a model that
    centres them). A CSV whose header names the model's columns is read by name
    (in any order; a missing or unexpected column is an error naming it); any
    other by position. svmlight files are read with the model's feature count
    and, unless ``zero_based`` says otherwise, numbered like the training file
    was; a file that does not fit is refused with what to pass. A feature index beyond
    the model's features is dropped (its weight would be 0), and a note on standard
    error counts the rows that held one, unless ``strict_features`` refuses it. Without
    ``label_column``, a CSV's label column is the one the model was trained with.
    The format is :func:`input_format`'s. CSV only: ``id_columns`` are read as text
    into each block's ``aside`` and ``ignore`` columns are dropped (neither may be
    one of the model's columns); other formats refuse them. ``body``: the input's
    bytes at hand (a request's), read instead of a file, ``path`` only naming them; its
    format is ``format``, else the model's.
    """
    from .._core.config import DEFAULT_CHUNK_SIZE
    from ..data.readers import STDIN, Stream, check_aside, scan, shown_name

    chunk_size = DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size
    kind, head = input_format(path, format, model, metadata, body=body)
    check_aside(kind, shown_name(path), id_columns, ignore)
    if is_text_model(model) != (kind == "text"):
        trained = "text (.tsv)" if is_text_model(model) else "numeric features (.csv/.svm)"
        raise DataFileError(
            f"{shown_name(path)}: a {kind} file, but the model was trained on {trained}; "
            "give the model data of the same kind"
        )
    if kind == "text":
        yield from Stream(path, chunk_size, format=kind, head=head, source=body)
        return
    n_features = getattr(final_estimator(model), "n_features_in_", None)
    if kind == "csv":
        columns, label_name = model_columns(model, metadata)
        if label_column is None:
            label_column = metadata.get("label_column")
        yield from Stream(
            path,
            chunk_size,
            format=kind,
            n_features=n_features,
            label_column=label_column,
            header=header,
            columns=columns,
            label_name=label_name,
            head=head,
            id_columns=id_columns,
            ignore=ignore,
            source=body,
        )
        return
    if _centres(model):
        trained_on = metadata.get("trained_on", "its training file")
        raise DataFileError(
            f"{shown_name(path)}: svmlight rows are sparse, but the model was trained on dense "
            f"rows ({trained_on}) and centres every feature, which sparse rows cannot take; "
            "give it CSV data like its training file, or retrain it on svmlight data"
        )
    trained_base = metadata.get("zero_based")
    as_trained = zero_based is None and trained_base is not None
    base = trained_base if as_trained else zero_based
    extra = "error" if strict_features else "ignore"
    try:
        if base is None:  # "auto" needs the whole file: a first pass decides
            if os.fspath(path) == STDIN:
                raise DataFileError(
                    f"{shown_name(path)}: the model does not say whether its svmlight feature "
                    "indices start at 0 or 1, and standard input cannot be read twice to "
                    "tell; pass --zero-based or --one-based"
                )
            if body is not None:  # a few rows of the input cannot tell it for the rest
                raise DataFileError(
                    f"{path}: the model does not say whether its svmlight feature indices "
                    "start at 0 or 1, so its input cannot be read as svmlight rows; send "
                    "JSON rows"
                )
            base = scan(
                path,
                format=kind,
                labelled=None,
                n_features=n_features,
                zero_based="auto",
                extra_features=extra,
            ).zero_based
        rows = 0  # rows that held features beyond the model's
        for data in Stream(
            path,
            chunk_size,
            format=kind,
            n_features=n_features,
            zero_based=base,
            head=head,
            source=body,
            extra_features=extra,
        ):
            rows += data.schema.extra_rows if data.schema is not None else 0
            yield data
        if rows and body is None:
            print(
                f"note: {rows} row{'s' if rows != 1 else ''} held features beyond the model's "
                f"{n_features} (ignored: their weights are 0); --strict-features refuses them",
                file=sys.stderr,
            )
    except DataFileError as error:
        raise _not_like_training(error, metadata, n_features, as_trained) from None


def _not_like_training(error, metadata, n_features, as_trained):
    """A reader's index error, saying what to pass for this model."""
    code = getattr(error, "code", None)
    if code not in ("index-zero", "index-beyond"):
        return error
    where = f"{error.path}, line {error.line}: {error.what}"
    trained_on = metadata.get("trained_on", "its training file")
    if code == "index-zero" and as_trained:
        fix = (
            f"the model's training file ({trained_on}) was read one-based, so its input "
            "is too; if this file is zero-based, pass --zero-based, and if the training "
            "file was zero-based as well (scikit-learn writes zero-based files), retrain "
            "with --zero-based"
        )
    elif code == "index-zero":
        fix = "pass --zero-based if this file's indices start at 0"
    else:
        fix = (
            f"the model has {n_features} features; give data with those features, or "
            "retrain on data that has them all, or leave out --strict-features to ignore "
            "the others"
        )
        if as_trained and not metadata.get("zero_based"):
            fix += (
                f" (if {trained_on} was zero-based with feature 0 never set, retrain it "
                "with --zero-based)"
            )
    return DataFileError(f"{where}; {fix}")


def labels_like(y: np.ndarray, classes: ArrayLike, path: str | os.PathLike[str]) -> np.ndarray:
    """Labels read from a file, as the same kind of values as the model's ``classes_``."""
    classes = np.asarray(classes)
    if classes.dtype.kind in "US" and y.dtype.kind not in "US":
        return y.astype(str)
    if classes.dtype.kind in "biuf" and y.dtype.kind in "US":
        raise DataFileError(
            f"{path}: the labels are text ({y[:1].tolist()[0]!r}, ...) but the model's "
            f"classes are numbers {classes.tolist()[:10]}; give the labels "
            "used in training"
        )
    return y
