"""Read the data files the command line works on: CSV, svmlight/libsvm and labelled text.

The format follows the file's extension:

- ``.csv``: one sample per line, comma-separated numbers; a header row is
  optional (detected); the label is the last column unless ``label_column``
  names another one (by header name or 0-based index, negative from the end).
- ``.svm``, ``.libsvm``, ``.svmlight``: ``label index:value ...`` lines, sparse,
  read with :func:`sklearn.datasets.load_svmlight_file`.
- ``.tsv``: labelled text, ``label<TAB>text`` per line (documents for a text model).

Every reader returns a :class:`Data`. For prediction the label may be missing:
``labelled=None`` decides per file (a CSV by its number of columns, given the
model's ``n_features``; svmlight by whether lines start with ``index:value``;
text by whether lines hold a tab). A malformed file raises
:class:`~rosenblatt.exceptions.DataFileError` naming the file and the 1-based line.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .exceptions import DataFileError

__all__ = ["FORMATS", "Data", "data_format", "read_csv", "read_data", "read_svmlight",
           "read_text"]

FORMATS = {
    ".csv": "csv",
    ".svm": "svmlight",
    ".libsvm": "svmlight",
    ".svmlight": "svmlight",
    ".tsv": "text",
}


@dataclass
class Data:
    """The content of a data file.

    Attributes
    ----------
    X : ndarray, scipy.sparse.csr_matrix or list of str
        Samples: a dense float64 array (CSV), a CSR matrix (svmlight) or the
        documents (text).
    y : ndarray or None
        Labels (ints where every label is an integer, else strings), or None
        for a file without labels.
    format : {"csv", "svmlight", "text"}
    path : str
    feature_names : list of str or None
        The CSV header's feature columns, when there is a header.
    zero_based : bool or None
        Whether the svmlight feature indices start at 0 (None for other formats).
    """

    X: object
    y: np.ndarray | None
    format: str
    path: str
    feature_names: list | None = None
    zero_based: bool | None = None
    notes: list = field(default_factory=list)

    @property
    def n_samples(self) -> int:
        return len(self.X) if isinstance(self.X, list) else self.X.shape[0]

    @property
    def n_features(self) -> int | None:
        """Number of features, or None for text (a vectorizer decides)."""
        return None if isinstance(self.X, list) else self.X.shape[1]

    @property
    def is_text(self) -> bool:
        return self.format == "text"


def data_format(path) -> str:
    """Name the format of a data file from its extension.

    Examples
    --------
    >>> data_format("train.libsvm"), data_format("spam.TSV")
    ('svmlight', 'text')
    """
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in FORMATS:
        raise DataFileError(
            f"{os.fspath(path)}: unknown data format {ext or '(no extension)'!r}; use "
            f"{', '.join(FORMATS)} (CSV, svmlight/libsvm, or label<TAB>text)"
        )
    return FORMATS[ext]


def read_data(path, *, label_column=None, labelled=True, n_features=None, zero_based="auto"):
    """Read a data file, choosing the reader by its extension.

    Parameters
    ----------
    path : str or path-like
    label_column : str or int, default=None
        CSV only: the label's column, by header name or index (default: the last).
    labelled : bool or None, default=True
        Whether the file has labels; None detects it (for prediction).
    n_features : int, default=None
        The number of features a model expects; checked (CSV, svmlight) and
        used to tell a CSV's label column from a feature.
    zero_based : bool or "auto", default="auto"
        svmlight only: whether feature indices start at 0 ("auto": at 0 when
        some index is 0). Give the training file's value when predicting.

    Returns
    -------
    Data

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.csv"
    >>> _ = path.write_text("x1,x2,label\\n-1,-1,no\\n1,-1,yes\\n-1,1,yes\\n1,1,yes\\n")
    >>> data = read_data(path)
    >>> data.X.shape, data.y.tolist(), data.feature_names
    ((4, 2), ['no', 'yes', 'yes', 'yes'], ['x1', 'x2'])
    """
    kind = data_format(path)
    if not os.path.isfile(path):
        raise DataFileError(f"{os.fspath(path)}: no such data file")
    if kind == "csv":
        return read_csv(path, label_column=label_column, labelled=labelled,
                        n_features=n_features)
    if label_column is not None:
        raise DataFileError(
            f"{os.fspath(path)}: label_column only applies to .csv files; {kind} files keep "
            "the label first on each line"
        )
    if kind == "svmlight":
        return read_svmlight(path, labelled=labelled, n_features=n_features,
                             zero_based=zero_based)
    return read_text(path, labelled=labelled)


# ---------------------------------------------------------------------- shared
def _decode(path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataFileError(
            f"{path}, line {line}: not valid UTF-8 ({exc.reason}); save the file as UTF-8"
        ) from None


def _read(path) -> str:
    with open(path, "rb") as handle:
        return _decode(os.fspath(path), handle.read())


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _labels(values, path, lines):
    """Labels as int64 when every one is an integer, else as strings."""
    for value, line in zip(values, lines):
        if not value:
            raise DataFileError(f"{path}, line {line}: empty label; give every sample a label")
    try:
        return np.array([int(v) for v in values], dtype=np.int64)
    except ValueError:
        return np.array(values, dtype=str)


# ---------------------------------------------------------------------- CSV
def _csv_rows(path, text):
    """Non-blank CSV rows with the 1-based line each starts on."""
    rows, starts = [], []
    reader = csv.reader(io.StringIO(text, newline=""))
    previous = 0
    try:
        for row in reader:
            start, previous = previous + 1, reader.line_num
            if not row or all(not cell.strip() for cell in row):
                continue
            rows.append([cell.strip() for cell in row])
            starts.append(start)
    except csv.Error as exc:
        raise DataFileError(f"{path}, line {reader.line_num}: {exc}") from None
    if not rows:
        raise DataFileError(f"{path}: no data rows (expected comma-separated numbers)")
    return rows, starts


def _label_index(path, label_column, header, width):
    if label_column is None:
        return width - 1
    if isinstance(label_column, str) and header is not None and label_column in header:
        return header.index(label_column)
    try:
        index = int(label_column)
    except (TypeError, ValueError):
        where = f"the header {header}" if header else "no header row"
        raise DataFileError(
            f"{path}, line 1: no column named {label_column!r} ({where}); give the label "
            "column's header name or its 0-based index"
        ) from None
    if not -width <= index < width:
        raise DataFileError(
            f"{path}, line 1: label column {index} is out of range for {width} columns"
        )
    return index % width


def read_csv(path, *, label_column=None, labelled=True, n_features=None) -> Data:
    """Read a CSV file of numeric features and a label column.

    A first row is taken as a header when one of its feature fields is not a
    number (or its label is text while the other rows' labels are numbers).
    Blank lines are skipped; every other line must have as many fields as the first.

    Parameters
    ----------
    path : str or path-like
    label_column : str or int, default=None
        Header name or 0-based index (negative counts from the end) of the
        label; default the last column.
    labelled : bool or None, default=True
        None: labelled when the rows have ``n_features + 1`` fields, unlabelled
        when they have ``n_features``.
    n_features : int, default=None

    Returns
    -------
    Data

    Raises
    ------
    DataFileError
        Naming the file and line: ragged rows, a field that is not a number,
        a missing (empty, NaN) or infinite value, an empty label.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "bad.csv"
    >>> _ = path.write_text("1,2,0\\n3,oops,1\\n")
    >>> read_csv(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: ...bad.csv, line 2, column 2: 'oops' is not a number
    """
    name = os.fspath(path)
    rows, starts = _csv_rows(name, _read(path))
    width = len(rows[0])
    for row, line in zip(rows, starts):
        if len(row) != width:
            raise DataFileError(
                f"{name}, line {line}: {len(row)} fields, but line {starts[0]} has {width}; "
                "every row needs the same columns"
            )
    if labelled is None:
        labelled = _detect_csv_label(name, width, n_features)
    first = rows[0]
    by_name = labelled and isinstance(label_column, str) and not _is_int(label_column)
    if by_name:  # a column named by its header
        has_header = True
    else:
        label = _label_index(name, label_column, None, width) if labelled else None
        features_first = [c for j, c in enumerate(first) if j != label]
        has_header = not all(_is_number(c) for c in features_first) or (
            label is not None and not _is_number(first[label]) and len(rows) > 1
            and all(_is_number(r[label]) for r in rows[1:])
        )
    header = None
    if has_header:
        header, rows, starts = first, rows[1:], starts[1:]
        if labelled:
            label = _label_index(name, label_column, header, width)
        if not rows:
            raise DataFileError(f"{name}: a header row but no data rows")
    else:
        label = label if labelled else None
    columns = [j for j in range(width) if j != label]
    if n_features is not None and len(columns) != n_features:
        raise DataFileError(
            f"{name}, line {starts[0]}: {len(columns)} feature columns, but the model expects "
            f"{n_features}"
        )
    X = _csv_matrix(name, rows, starts, columns, header)
    y = _labels([r[label] for r in rows], name, starts) if labelled else None
    names = [header[j] for j in columns] if header else None
    return Data(X=X, y=y, format="csv", path=name, feature_names=names)


def _is_int(text) -> bool:
    try:
        int(text)
    except (TypeError, ValueError):
        return False
    return True


def _detect_csv_label(name, width, n_features):
    if n_features is None:
        return True
    if width == n_features:
        return False
    if width == n_features + 1:
        return True
    raise DataFileError(
        f"{name}, line 1: {width} columns, but the model expects {n_features} features "
        f"(or {n_features} features and a label)"
    )


def _csv_matrix(name, rows, starts, columns, header):
    cells = [[row[j] for j in columns] for row in rows]
    try:
        X = np.array(cells, dtype=np.float64)
    except ValueError:
        X = None
    bad = None
    if X is None:  # find the first field that is not a number, for the message
        for row, line in zip(cells, starts):
            for k, cell in enumerate(row):
                if not cell:
                    bad = (line, k, "an empty (missing) value")
                    break
                if not _is_number(cell):
                    bad = (line, k, f"{cell!r} is not a number")
                    break
            if bad:
                break
    else:
        finite = np.isfinite(X)
        if not finite.all():
            r, k = np.argwhere(~finite)[0]
            bad = (starts[r], k, f"{cells[r][k]!r} is a missing or infinite value")
    if bad:
        line, k, what = bad
        column = repr(header[columns[k]]) if header else str(columns[k] + 1)
        fix = "" if "not a number" in what else "; fill in or drop missing values"
        raise DataFileError(f"{name}, line {line}, column {column}: {what}{fix}")
    return X


# ---------------------------------------------------------------------- svmlight
_FEATURE = re.compile(r"^(-?\d+):(\S+)$")


def _svm_lines(text):
    """(1-based line, content without comment) of every non-blank line."""
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0].strip()
        if content:
            yield number, content


def _svm_problem(tokens, labelled, zero_based, n_features):
    """What is wrong with one line's tokens, or None."""
    if labelled:
        if not tokens or not _is_number(tokens[0]):
            return f"the label {tokens[0]!r} is not a number" if tokens else "no label"
        tokens = tokens[1:]
    if tokens and tokens[0].startswith("qid:"):
        if not _is_int(tokens[0][4:]):
            return f"bad query id {tokens[0]!r}"
        tokens = tokens[1:]
    previous = -1
    for token in tokens:
        match = _FEATURE.match(token)
        if not match or not _is_number(match.group(2)):
            return f"{token!r} is not index:value"
        index = int(match.group(1))
        if index < 0 or (zero_based is False and index == 0):
            smallest = 0 if zero_based else 1
            return f"feature index {index} is below {smallest}"
        if index <= previous:
            return f"feature index {index} after {previous}; indices must increase along a line"
        if not np.isfinite(float(match.group(2))):
            return f"{token!r} holds a missing or infinite value"
        if n_features is not None and (index if zero_based else index - 1) >= n_features:
            return f"feature index {index} is beyond the model's {n_features} features"
        previous = index
    return None


def read_svmlight(path, *, labelled=True, n_features=None, zero_based="auto") -> Data:
    """Read an svmlight / libsvm file (``label index:value ...`` per line) into a CSR matrix.

    Parameters
    ----------
    path : str or path-like
    labelled : bool or None, default=True
        None: the file is unlabelled when its first line starts with ``index:value``.
    n_features : int, default=None
        Number of columns of ``X`` (a model's ``n_features_in_``); a larger
        index is an error.
    zero_based : bool or "auto", default="auto"
        "auto" takes indices as 0-based when some index is 0, else as 1-based.

    Returns
    -------
    Data
        ``X`` is a CSR matrix; ``zero_based`` records the indexing used.

    Raises
    ------
    DataFileError
        Naming the file and line of the first malformed line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> data = read_svmlight(path)
    >>> data.X.toarray()[0], data.y.tolist(), data.zero_based
    (array([-1., -1.]), [-1, 1, 1, 1], False)
    """
    from sklearn.datasets import load_svmlight_file

    name = os.fspath(path)
    text = _read(path)
    lines = list(_svm_lines(text))
    if not lines:
        raise DataFileError(f"{name}: no samples (expected lines of label index:value ...)")
    if labelled is None:
        labelled = not _FEATURE.match(lines[0][1].split()[0])
    source = "\n".join(content if labelled else f"0 {content}" for _, content in lines)
    try:
        X, y = load_svmlight_file(io.BytesIO(source.encode()), zero_based=True,
                                  dtype=np.float64)
    except ValueError as exc:
        raise _locate_svm(name, lines, labelled, zero_based, None, str(exc)) from None
    X = sp.csr_matrix(X)
    if zero_based == "auto":
        zero_based = X.nnz > 0 and int(X.indices.min()) == 0
    if not zero_based:
        if X.nnz and int(X.indices.min()) == 0:
            raise _locate_svm(name, lines, labelled, False, None, "index 0 in a 1-based file")
        X = sp.csr_matrix((X.data, X.indices - 1, X.indptr),
                          shape=(X.shape[0], max(X.shape[1] - 1, 0)))
    if not np.all(np.isfinite(X.data)):
        raise _locate_svm(name, lines, labelled, zero_based, None, "a non-finite value")
    if n_features is not None:
        if X.shape[1] > n_features:
            raise _locate_svm(name, lines, labelled, zero_based, n_features,
                              f"more than {n_features} features")
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
    if labelled:
        label_lines = [number for number, _ in lines]
        y = _labels([_label_text(v) for v in y], name, label_lines)
    else:
        y = None
    return Data(X=X, y=y, format="svmlight", path=name, zero_based=bool(zero_based))


def _label_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _locate_svm(name, lines, labelled, zero_based, n_features, fallback):
    """The error of the first bad line (sklearn's own messages carry no line number)."""
    for number, content in lines:
        problem = _svm_problem(content.split(), labelled, zero_based, n_features)
        if problem:
            return DataFileError(f"{name}, line {number}: {problem}")
    return DataFileError(f"{name}: {fallback}")


# ---------------------------------------------------------------------- text
def read_text(path, *, labelled=True) -> Data:
    """Read labelled text: ``label<TAB>text`` per line (the text may hold more tabs).

    Blank lines are skipped. Unlabelled files (``labelled=False``, for
    prediction) hold one document per line.

    Parameters
    ----------
    path : str or path-like
    labelled : bool or None, default=True
        None: labelled when the first non-blank line holds a tab.

    Returns
    -------
    Data
        ``X`` is the list of documents.

    Raises
    ------
    DataFileError
        For a line without a tab, an empty label or an empty text, naming the line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sms.tsv"
    >>> _ = path.write_text("ham\\tsee you at 5\\nspam\\tWIN a prize now\\n")
    >>> data = read_text(path)
    >>> data.X, data.y.tolist()
    (['see you at 5', 'WIN a prize now'], ['ham', 'spam'])
    """
    name = os.fspath(path)
    records = [(n, line.rstrip("\r")) for n, line in enumerate(_read(path).split("\n"), 1)
               if line.strip()]
    if not records:
        raise DataFileError(f"{name}: no records (expected lines of label<TAB>text)")
    if labelled is None:
        labelled = "\t" in records[0][1]
    if not labelled:
        return Data(X=[line for _, line in records], y=None, format="text", path=name)
    texts, labels = [], []
    for number, line in records:
        label, tab, text = line.partition("\t")
        if not tab:
            raise DataFileError(
                f"{name}, line {number}: no tab between label and text: {line[:60]!r}"
            )
        if not label.strip():
            raise DataFileError(f"{name}, line {number}: empty label before the tab")
        if not text.strip():
            raise DataFileError(f"{name}, line {number}: empty text after label {label!r}")
        texts.append(text)
        labels.append(label.strip())
    y = _labels(labels, name, [n for n, _ in records])
    return Data(X=texts, y=y, format="text", path=name)
