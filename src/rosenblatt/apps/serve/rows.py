"""The rows and labels of a request: JSON (rows or named columns), or the model's data format.

A JSON body holds ``"rows"`` (a list of rows of numbers, or of documents for a text model)
or ``"columns"`` (the model's columns by name, each a list of numbers); a body of
``Content-Type`` ``text/csv``, ``text/tab-separated-values``, ``text/x-svmlight`` (or
``text/plain``: the format the model was trained on) is read by the data readers, as
``rosenblatt predict -`` reads a file. Bad rows are refused with one message naming the row
and the column: ``rows[3][1] ("x2") is "abc", not a number`` (JSON, counted from 0 as JSON
arrays are) or ``request body, line 4, column 2: 'abc' is not a number`` (a data format,
counted from 1 as files are).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._core.json_input import loads
from ..model_input import final_estimator, is_text_model, labels_like, model_columns

__all__ = ["BODY", "DATA_TYPES", "Batch", "RequestError", "RowReader", "batch_bytes"]

#: How messages name the rows of a request's body in a data format
BODY = "request body"
#: The data formats a body may be in, by its Content-Type (None: the model's own);
#: anything else is read as JSON
DATA_TYPES = {
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
    "text/x-svmlight": "svmlight",
    "application/x-svmlight": "svmlight",
    "text/plain": None,
}
_SHOWN = 40  # characters of a bad value a message shows
_JSON = "json"


class RequestError(ValueError):
    """A request the service refuses: its message is the answer's ``error``, ``status``
    its HTTP status (400 unless said), ``details`` more fields of the answer."""

    def __init__(self, message: str, status: int = 400, **details: Any) -> None:
        super().__init__(message)
        self.status = status
        self.details = details


@dataclass
class Batch:
    """Rows of a request (``X``: an array, a CSR matrix, or a list of documents) and their
    labels (``y``, None for a prediction)."""

    X: Any
    y: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return len(self.X) if isinstance(self.X, list) else int(self.X.shape[0])


def batch_bytes(X: Any) -> int:
    """About the memory the rows ``X`` take (what the service's bounds count)."""
    if isinstance(X, list):
        return sum(len(doc) for doc in X) + 56 * len(X)  # a str's own header, about
    if hasattr(X, "indptr"):
        return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)
    return int(X.nbytes)


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


class RowReader:
    """What the served model reads, fixed while it serves: text or numbers, how many
    features, the columns' names, the data format it was trained on.

    Parameters
    ----------
    model : estimator
        The served model (the rows it reads do not change as it learns).
    metadata : dict
        Its file's metadata (the data format, the columns), as the commands read it.

    Examples
    --------
    >>> from rosenblatt import Perceptron
    >>> reader = RowReader(Perceptron().fit([[0.0, 1.0], [1.0, 0.0]], [0, 1]), {})
    >>> reader.predict_rows(b'{"rows": [[0.5, 2]]}', "application/json", None).X
    array([[0.5, 2. ]])
    >>> reader.predict_rows(b'{"rows": [[0.5, "2"]]}', "application/json", None)
    Traceback (most recent call last):
    ...
    rosenblatt.apps.serve.rows.RequestError: rows[0][1] is "2", not a number; send every \
feature as a JSON number
    """

    def __init__(self, model: Any, metadata: dict[str, Any]) -> None:
        self.metadata = metadata
        self.text = is_text_model(model)
        final = final_estimator(model)
        self.n_features = None if self.text else getattr(final, "n_features_in_", None)
        self.columns = None if self.text else model_columns(model, metadata)[0]

    # ------------------------------------------------------------------ requests
    def predict_rows(self, body: bytes, content_type: str, model: Any) -> Batch:
        """The rows of a ``/predict`` body (labels, if any, are left aside)."""
        kind = _data_type(content_type)
        if kind != _JSON:
            return Batch(self._data_rows(body, kind, model, labelled=False).X)
        request = self._json(body, ("rows", "columns"), "a prediction")
        return Batch(self._rows_of(request, _may_hold_booleans(body)))

    def learn_rows(self, body: bytes, content_type: str, model: Any, recent: Any) -> Batch:
        """The rows and labels of a ``/learn`` body: rows (or columns) with ``labels``, or
        the ``ids`` of recent predictions (``recent``: their rows) with ``labels``."""
        kind = _data_type(content_type)
        if kind != _JSON:
            batch = self._data_rows(body, kind, model, labelled=True)
        else:
            request = self._json(body, ("rows", "columns", "ids"), "a learn request", "labels")
            if "labels" not in request:
                raise RequestError(
                    'a learn request holds "labels", one for each row (or id); send '
                    '{"rows": [...], "labels": [...]} or {"ids": [...], "labels": [...]}'
                )
            if "ids" in request:
                X = recent.rows(request["ids"])
            else:
                X = self._rows_of(request, _may_hold_booleans(body))
            batch = Batch(X)
            batch.y = _labels(request["labels"], batch.n_rows)
        assert batch.y is not None
        batch.y = labels_like(batch.y, getattr(model, "classes_", batch.y[:0]), BODY)
        return batch

    # ------------------------------------------------------------------ JSON
    def _json(self, body: bytes, forms: tuple[str, ...], what: str, *extra: str) -> dict:
        if not body.strip():
            raise RequestError(f"the request has no body; send {what} as JSON: " + _FORMS[forms[0]])
        try:
            request = loads(body)
        except ValueError as error:  # JSONInputError
            raise RequestError(f"bad request: {error}") from None
        if not isinstance(request, dict):
            raise RequestError(
                f"the body is JSON {type(request).__name__}; send {what} as a JSON object: "
                + _FORMS[forms[0]]
            )
        given = [key for key in forms if key in request]
        unknown = [key for key in request if key not in forms and key not in extra]
        if unknown or len(given) != 1:
            if unknown:
                said = f"an unexpected key {_shown(unknown[0])}"
            else:
                said = "none of them" if not given else f"{' and '.join(given)} together"
            keys = " or ".join(f'"{key}"' for key in forms)
            also = "".join(f' and "{key}"' for key in extra)
            raise RequestError(f"{what} holds one of {keys}{also}; this one has {said}")
        return request

    def _rows_of(self, request: dict, booleans: bool) -> Any:
        """The rows of a JSON request; ``booleans``: whether its body may hold ``true`` or
        ``false`` (numpy would read them as 1 and 0: every value is then looked at)."""
        if "columns" in request:
            return self._columns(request["columns"], booleans)
        rows = request["rows"]
        if not isinstance(rows, list) or not rows:
            raise RequestError(
                f'"rows" is {_shown(rows)}; send a list of one or more rows: '
                + (_FORMS["documents"] if self.text else _FORMS["rows"])
            )
        if self.text:
            return _documents(rows)
        return self._dense(rows, booleans)

    def _dense(self, rows: list, booleans: bool) -> np.ndarray:
        """The float64 array of JSON rows, each of the model's width, all numbers."""
        try:  # numpy reads lists of numbers at C speed; anything else takes the checks
            X = np.array(rows)
        except (ValueError, TypeError, OverflowError):  # ragged rows, a huge int
            X = None
        if (
            not booleans
            and X is not None
            and X.ndim == 2
            and X.dtype.kind in "fi"
            and (self.n_features is None or X.shape[1] == self.n_features)
        ):
            return X.astype(np.float64, copy=False)
        return self._checked(rows, lambda i, j: f"rows[{i}][{j}]{self._named(j)}")

    def _checked(self, rows: list, where) -> np.ndarray:
        """The first row or cell that is not what the model reads, named; else the array."""
        width = self.n_features
        for i, row in enumerate(rows):
            if not isinstance(row, list):
                raise RequestError(
                    f"rows[{i}] is {_shown(row)}, not a row; send each row as a list of "
                    f"{width or 'the model'}{'' if width is None else ' numbers'}"
                )
            if width is None:
                width = len(row)
            if len(row) != width:
                raise RequestError(
                    f"rows[{i}] holds {len(row)} values; the model takes {width} features"
                    f"{self._listed()}: send {width} numbers a row"
                )
            for j, value in enumerate(row):
                _number(value, where(i, j))
        return np.array(rows, dtype=np.float64)

    def _columns(self, columns: Any, booleans: bool) -> np.ndarray:
        if self.columns is None:
            raise RequestError(
                "the model was trained without column names, so it reads rows, not "
                "columns: send " + (_FORMS["documents"] if self.text else _FORMS["rows"])
            )
        if not isinstance(columns, dict) or not columns:
            raise RequestError(
                f'"columns" is {_shown(columns)}; send an object of the model\'s columns: '
                + _FORMS["columns"]
            )
        missing = [name for name in self.columns if name not in columns]
        extra = [name for name in columns if name not in self.columns]
        if missing or extra:
            said = "; ".join(
                part
                for part in (
                    missing and f"no column {', '.join(map(_shown, missing[:5]))}",
                    extra and f"an unexpected column {', '.join(map(_shown, extra[:5]))}",
                )
                if part
            )
            raise RequestError(
                f'"columns" does not hold the model\'s columns: {said}; send these '
                f"{len(self.columns)}: {', '.join(self.columns[:12])}"
                f"{', ...' if len(self.columns) > 12 else ''}"
            )
        lengths = {name: len(v) if isinstance(v, list) else -1 for name, v in columns.items()}
        for name in self.columns:
            value = columns[name]
            if not isinstance(value, list) or not value:
                raise RequestError(
                    f'columns["{name}"] is {_shown(value)}; send a list of numbers, one a row'
                )
            if lengths[name] != lengths[self.columns[0]]:
                raise RequestError(
                    f'columns["{name}"] holds {lengths[name]} values and '
                    f'columns["{self.columns[0]}"] {lengths[self.columns[0]]}; send one '
                    "value a row in every column"
                )
        ordered = [columns[name] for name in self.columns]
        try:
            X = np.array(ordered)
        except (ValueError, TypeError, OverflowError):
            X = None
        if booleans or X is None or X.ndim != 2 or X.dtype.kind not in "fi":
            for name, values in zip(self.columns, ordered):
                for i, value in enumerate(values):
                    _number(value, f'columns["{name}"][{i}]')
            X = np.array(ordered, dtype=np.float64)
        return np.ascontiguousarray(X.T, dtype=np.float64)

    def _named(self, j: int) -> str:
        return f" ({_shown(self.columns[j])})" if self.columns and j < len(self.columns) else ""

    def _listed(self) -> str:
        if not self.columns:
            return ""
        return f" ({', '.join(self.columns[:6])}{', ...' if len(self.columns) > 6 else ''})"

    # ------------------------------------------------------------------ data formats
    def _data_rows(self, body: bytes, kind: str | None, model: Any, labelled: bool) -> Batch:
        from ..model_input import read_model_input

        if not body.strip():
            raise RequestError("the request has no rows; send one or more lines of data")
        blocks = list(
            read_model_input(
                BODY,
                model,
                self.metadata,
                format=kind,
                body=body,
                chunk_size=body.count(b"\n") + 1,  # one block: the body is at hand
            )
        )
        if labelled and any(block.y is None for block in blocks):
            raise RequestError(
                f"{BODY}: the rows have no labels; send each row with its label, as in "
                "the model's training data"
            )
        X = _joined([block.X for block in blocks])
        y = np.concatenate([block.y for block in blocks]) if labelled else None
        return Batch(X, y)


_FORMS = {
    "rows": '{"rows": [[1.5, 0, ...], ...]}',
    "columns": '{"columns": {"name": [1.5, ...], ...}}',
    "documents": '{"rows": ["a document", ...]}',
    "ids": '{"ids": ["...", ...], "labels": [...]}',
}


def _data_type(content_type: str) -> str | None:
    """The data format a Content-Type names (None: the model's own), or ``"json"``."""
    kind = content_type.split(";", 1)[0].strip().lower()
    return DATA_TYPES[kind] if kind in DATA_TYPES else _JSON


def _may_hold_booleans(body: bytes) -> bool:
    """Whether a JSON body may hold ``true`` or ``false`` (in a string or not)."""
    return b"true" in body or b"false" in body


def _number(value: Any, where: str) -> None:
    """Refuse a JSON value that is not a number (one beyond the float range never gets
    here: :func:`~rosenblatt._core.json_input.loads` refuses it)."""
    if type(value) not in (int, float):  # bool is no number here: true is not 1
        raise RequestError(
            f"{where} is {_shown(value)}, not a number; send every feature as a JSON number"
        )


def _documents(rows: list) -> list[str]:
    for i, row in enumerate(rows):
        if not isinstance(row, str):
            raise RequestError(
                f"rows[{i}] is {_shown(row)}, not text; the model reads documents: send each "
                "row as a JSON string"
            )
    return rows


def _labels(labels: Any, n_rows: int) -> np.ndarray:
    if not isinstance(labels, list):
        raise RequestError(f'"labels" is {_shown(labels)}; send a list of labels, one a row')
    if len(labels) != n_rows:
        raise RequestError(
            f'"labels" holds {len(labels)} labels for {n_rows} rows; send one label a row'
        )
    for i, label in enumerate(labels):
        if type(label) not in (int, float, str, bool):
            raise RequestError(
                f"labels[{i}] is {_shown(label)}; a label is a JSON string, number or boolean"
            )
    return np.asarray(labels)


def _joined(parts: list) -> Any:
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], list):
        return [doc for part in parts for doc in part]
    if hasattr(parts[0], "indptr"):
        import scipy.sparse as sp

        return sp.vstack(parts, format="csr")
    return np.concatenate(parts)
