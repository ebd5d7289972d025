"""Train from data files larger than memory, one chunk of lines at a time.

An *index pass* reads the file once, line by line, and keeps only the byte
offset where every chunk of ``chunk_size`` samples starts, the label set (for
one-pass class discovery) and, for svmlight files, the largest feature index
(so every chunk gets the same number of columns). Each epoch then visits the
chunks in a fresh random order, seeking straight to each one, and hands it to
the estimator's :meth:`partial_fit`, which runs one pass over the chunk in its
own shuffled order (``shuffle=True``: a fresh permutation of the chunk's rows,
drawn from the estimator's ``random_state``). So an epoch presents every sample
once, in a random order that is random at two levels: which chunk comes next,
and which row inside the chunk. Memory holds one parsed chunk and the weights.

Formats follow the file extension, as in :mod:`rosenblatt.io`:

- ``.svm``, ``.svmlight``, ``.libsvm``: ``label index:value ...`` per line;
  chunks are parsed with :func:`sklearn.datasets.load_svmlight_file`.
- ``.csv``: comma-separated numbers, an optional header, the label in the last
  column or in ``label_column``. One sample per line (no quoted line breaks).
- ``.tsv``: ``label<TAB>text`` per line. Documents are hashed by a
  :class:`~sklearn.feature_extraction.text.HashingVectorizer`
  (``alternate_sign=False``, l2 norm), which needs no vocabulary pass; the
  fitted result is a pipeline of that vectorizer and the estimator, so it
  predicts on raw text.

A malformed line raises :class:`~rosenblatt.exceptions.DataFileError` naming the
file and the 1-based line.
"""

from __future__ import annotations

import csv
import io
import os
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .exceptions import DataFileError
from .io import data_format

__all__ = ["ChunkIndex", "chunk_orders", "fit_stream", "hashing_vectorizer", "index_file",
           "iter_chunks", "read_chunk", "score_stream", "train_stream"]

DEFAULT_CHUNK_SIZE = 10_000
DEFAULT_HASH_FEATURES = 2**20
_BOM = b"\xef\xbb\xbf"


@dataclass
class ChunkIndex:
    """Where each chunk of a data file starts, and what the index pass learned.

    Attributes
    ----------
    path : str
    format : {"svmlight", "csv", "text"}
    chunk_size : int
        Samples per chunk (the last chunk may hold fewer).
    offsets : ndarray of int64, shape (n_chunks + 1,)
        Byte offset of each chunk's first sample; the last entry is the file size.
    first_lines : ndarray of int64, shape (n_chunks,)
        1-based line number of each chunk's first sample.
    n_rows : ndarray of int64, shape (n_chunks,)
    classes : ndarray
        The sorted labels found in the file (ints where all are integers).
    n_features : int or None
        Columns of every chunk (None for text: the vectorizer decides).
    zero_based : bool or None
        svmlight only: whether feature indices start at 0.
    label_index : int or None
        CSV only: the label's column.
    header : list of str or None
        CSV only: the header row, if any.
    """

    path: str
    format: str
    chunk_size: int
    offsets: np.ndarray
    first_lines: np.ndarray
    n_rows: np.ndarray
    classes: np.ndarray
    n_features: int | None = None
    zero_based: bool | None = None
    label_index: int | None = None
    header: list | None = None
    n_columns: int | None = None
    size: int = 0
    mtime_ns: int = 0
    notes: list = field(default_factory=list)

    @property
    def n_chunks(self) -> int:
        return self.n_rows.shape[0]

    @property
    def n_samples(self) -> int:
        return int(self.n_rows.sum())


# ---------------------------------------------------------------------- index pass
def index_file(path, chunk_size=DEFAULT_CHUNK_SIZE, *, n_features=None, zero_based="auto",
               label_column=None) -> ChunkIndex:
    """Read a data file once and record where every chunk of ``chunk_size`` samples starts.

    Parameters
    ----------
    path : str or path-like
        A ``.svm``/``.svmlight``/``.libsvm``, ``.csv`` or ``.tsv`` file.
    chunk_size : int, default=10000
        Samples (non-blank lines) per chunk.
    n_features : int, default=None
        svmlight: the number of columns (default: the largest index found);
        a larger index in the file is an error.
    zero_based : bool or "auto", default="auto"
        svmlight: whether indices start at 0 ("auto": when some index is 0).
    label_column : str or int, default=None
        CSV: the label column by header name or 0-based index (default: the last).

    Returns
    -------
    ChunkIndex

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> index = index_file(path, chunk_size=3)
    >>> index.n_chunks, index.n_rows.tolist(), index.classes.tolist(), index.n_features
    (2, [3, 1], [-1, 1], 2)
    """
    if not (isinstance(chunk_size, (int, np.integer)) and chunk_size >= 1):
        raise ValueError(f"chunk_size must be a positive int; got {chunk_size!r}")
    name = os.fspath(path)
    kind = data_format(name)
    if not os.path.isfile(name):
        raise DataFileError(f"{name}: no such data file")
    if label_column is not None and kind != "csv":
        raise DataFileError(f"{name}: label_column only applies to .csv files")
    scan = {"svmlight": _SvmScan, "csv": _CsvScan, "text": _TextScan}[kind](
        name, n_features=n_features, zero_based=zero_based, label_column=label_column)
    offsets, first_lines, n_rows = [], [], []
    rows = 0
    offset = 0
    stat = os.stat(name)
    with open(name, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            start = offset
            offset += len(raw)
            if number == 1 and raw.startswith(_BOM):
                raw, start = raw[len(_BOM):], start + len(_BOM)
            if not scan.line(number, raw):
                continue  # blank, comment or header
            if rows == 0:
                offsets.append(start)
                first_lines.append(number)
            rows += 1
            if rows == chunk_size:
                n_rows.append(rows)
                rows = 0
    if rows:
        n_rows.append(rows)
    if not n_rows:
        raise DataFileError(f"{name}: no samples ({scan.expected})")
    offsets.append(offset)
    index = ChunkIndex(
        path=name, format=kind, chunk_size=int(chunk_size),
        offsets=np.array(offsets, dtype=np.int64),
        first_lines=np.array(first_lines, dtype=np.int64),
        n_rows=np.array(n_rows, dtype=np.int64), classes=scan.classes(),
        size=stat.st_size, mtime_ns=stat.st_mtime_ns,
    )
    scan.finish(index)
    return index


def _label_values(tokens):
    """Labels as int64 when every one is an integer, else as strings (as rosenblatt.io does)."""
    texts = [t.decode("utf-8", "replace") for t in tokens]
    try:
        return np.array(sorted({int(t) for t in texts}), dtype=np.int64)
    except ValueError:
        return np.array(sorted(set(texts)), dtype=str)


class _SvmScan:
    expected = "expected lines of label index:value ..."

    def __init__(self, name, *, n_features, zero_based, label_column):
        self.name, self.n_features, self.zero_based = name, n_features, zero_based
        self.labels = {}
        self.lowest, self.highest = None, -1

    def line(self, number, raw):
        if b"#" in raw:
            raw = raw.split(b"#", 1)[0]
        parts = raw.split(None, 1)
        if not parts:
            return False
        label = parts[0]
        if label not in self.labels:
            try:
                value = float(label)
            except ValueError:
                raise DataFileError(
                    f"{self.name}, line {number}: the label {_show(label)} is not a number"
                ) from None
            if not np.isfinite(value):
                raise DataFileError(f"{self.name}, line {number}: the label {_show(label)} "
                                    "is not finite")
            self.labels[label] = value
        if len(parts) == 2:
            # indices increase along a line: its first and last index bound the others
            first = parts[1].split(None, 1)
            if first[0].startswith(b"qid:"):
                first = first[1].split(None, 1) if len(first) > 1 else [b""]
            first = first[0]
            if first:
                last = parts[1].rsplit(None, 1)[-1]
                low, high = self._index(first, number), self._index(last, number)
                self.lowest = low if self.lowest is None else min(self.lowest, low)
                self.highest = max(self.highest, high)
        return True

    def _index(self, token, number):
        head, colon, _ = token.partition(b":")
        try:
            if not colon:
                raise ValueError
            return int(head)
        except ValueError:
            raise DataFileError(
                f"{self.name}, line {number}: {_show(token)} is not index:value"
            ) from None

    def classes(self):
        values = np.array(sorted(set(self.labels.values())), dtype=np.float64)
        if np.all(values == np.round(values)):
            return values.astype(np.int64)
        return values

    def finish(self, index):
        zero_based = self.zero_based
        if zero_based == "auto":
            zero_based = self.lowest == 0
        width = self.highest + 1 if zero_based else max(self.highest, 0)
        if self.n_features is None:
            n_features = max(width, 1)
        else:
            n_features = int(self.n_features)
            if width > n_features:
                raise DataFileError(
                    f"{self.name}: feature index {self.highest} is beyond n_features="
                    f"{n_features}; pass a larger n_features (or none to use the file's)"
                )
        index.n_features, index.zero_based = n_features, bool(zero_based)


class _CsvScan:
    expected = "expected comma-separated numbers"

    def __init__(self, name, *, n_features, zero_based, label_column):
        self.name, self.label_column = name, label_column
        self.started = False
        self.width = None
        self.label = None
        self.header = None
        self.labels = set()

    def line(self, number, raw):
        if not raw.strip():
            return False
        fields = raw.split(b",")
        if not self.started:
            self.started = True
            if self._header(raw, len(fields)):
                return False
        if self.width is None:
            self.width, self.first_line = len(fields), number
            if self.label is None:
                self.label = _label_position(self.name, self.label_column, None, self.width)
        if len(fields) != self.width:
            raise DataFileError(
                f"{self.name}, line {number}: {len(fields)} fields, but line "
                f"{self.first_line} has {self.width}; every row needs the same columns"
            )
        label = fields[self.label].strip().strip(b'"')
        if not label:
            raise DataFileError(f"{self.name}, line {number}: empty label; give every "
                                "sample a label")
        self.labels.add(label)
        return True

    def _header(self, raw, width) -> bool:
        """Whether the first line is a header (a feature field that is not a number)."""
        cells = next(csv.reader([raw.decode("utf-8", "replace").strip()]))
        if isinstance(self.label_column, str) and not _is_int(self.label_column):
            header = cells  # a label named by its header
        else:
            label = _label_position(self.name, self.label_column, None, width)
            numeric = all(_is_number(c) for j, c in enumerate(cells) if j != label)
            header = None if numeric else cells
        if header is None:
            return False
        self.header = [c.strip() for c in header]
        self.label = _label_position(self.name, self.label_column, self.header, width)
        return True

    def classes(self):
        return _label_values(self.labels)

    def finish(self, index):
        index.label_index = self.label
        index.header = self.header
        index.n_columns = self.width
        index.n_features = self.width - 1


class _TextScan:
    expected = "expected lines of label<TAB>text"

    def __init__(self, name, **_):
        self.name = name
        self.labels = set()

    def line(self, number, raw):
        if not raw.strip():
            return False
        label, tab, text = raw.partition(b"\t")
        if not tab:
            raise DataFileError(
                f"{self.name}, line {number}: no tab between label and text: "
                f"{_show(raw.rstrip()[:60])}"
            )
        label = label.strip()
        if not label:
            raise DataFileError(f"{self.name}, line {number}: empty label before the tab")
        if not text.strip():
            raise DataFileError(f"{self.name}, line {number}: empty text after label "
                                f"{_show(label)}")
        self.labels.add(label)
        return True

    def classes(self):
        return _label_values(self.labels)

    def finish(self, index):
        index.n_features = None


def _show(raw: bytes) -> str:
    return repr(raw.decode("utf-8", "replace"))


def _is_number(text) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_int(text) -> bool:
    try:
        int(text)
    except (TypeError, ValueError):
        return False
    return True


def _label_position(name, label_column, header, width):
    if label_column is None:
        return width - 1
    if isinstance(label_column, str) and not _is_int(label_column):
        if header is not None and label_column in [h.strip() for h in header]:
            return [h.strip() for h in header].index(label_column)
        raise DataFileError(f"{name}, line 1: no column named {label_column!r}; give the "
                            "label column's header name or its 0-based index")
    index = int(label_column)
    if not -width <= index < width:
        raise DataFileError(f"{name}, line 1: label column {index} is out of range for "
                            f"{width} columns")
    return index % width


# ---------------------------------------------------------------------- chunks
def read_chunk(index, c, *, dtype=np.float64, handle=None):
    """Parse chunk ``c`` of an indexed file.

    Returns
    -------
    X : csr_matrix (svmlight, text is hashed elsewhere), ndarray (CSV) or list of str (text)
    y : ndarray
        Labels of the same kind as ``index.classes``.
    """
    if handle is None:
        with open(index.path, "rb") as handle:
            return read_chunk(index, c, dtype=dtype, handle=handle)
    start, stop = int(index.offsets[c]), int(index.offsets[c + 1])
    handle.seek(start)
    raw = handle.read(stop - start)
    first = int(index.first_lines[c])
    X, y = {"svmlight": _parse_svmlight, "csv": _parse_csv, "text": _parse_text}[
        index.format](index, raw, first, dtype)
    n = len(y)
    if n != index.n_rows[c]:
        raise DataFileError(
            f"{index.path}, line {first}: chunk {c} now holds {n} samples, but the index "
            f"pass counted {index.n_rows[c]}; the file changed since it was indexed"
        )
    return X, y


def iter_chunks(path, chunk_size=DEFAULT_CHUNK_SIZE, n_features=None, *, order=None,
                index=None, zero_based="auto", label_column=None, dtype=np.float64):
    """Yield ``(X, y)`` for every chunk of a data file, in file order or in ``order``.

    Parameters
    ----------
    path : str or path-like
    chunk_size : int, default=10000
        Samples per chunk.
    n_features : int, default=None
        svmlight: number of columns of every chunk (default: the largest index
        in the file, found by the index pass).
    order : sequence of int, default=None
        Chunk numbers to visit (default: all, in file order).
    index : ChunkIndex, default=None
        A previous :func:`index_file` result for this file (saves the index pass).
    zero_based, label_column
        As in :func:`index_file`.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64

    Yields
    ------
    X : csr_matrix (svmlight), ndarray (CSV) or list of str (text documents)
    y : ndarray

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.csv"
    >>> _ = path.write_text("x1,x2,label\\n-1,-1,0\\n1,-1,1\\n-1,1,1\\n1,1,1\\n")
    >>> [(X.shape, y.tolist()) for X, y in iter_chunks(path, chunk_size=3)]
    [((3, 2), [0, 1, 1]), ((1, 2), [1])]
    """
    if index is None:
        index = index_file(path, chunk_size, n_features=n_features, zero_based=zero_based,
                           label_column=label_column)
    chunks = range(index.n_chunks) if order is None else order
    with open(index.path, "rb") as handle:
        _check_unchanged(index)
        for c in chunks:
            yield read_chunk(index, int(c), dtype=dtype, handle=handle)


def _check_unchanged(index):
    stat = os.stat(index.path)
    if stat.st_size != index.size or stat.st_mtime_ns != index.mtime_ns:
        raise DataFileError(f"{index.path}: the file changed since it was indexed; "
                            "index it again")


def _lines(raw, first):
    """(1-based line number, text) of every line of a chunk's bytes."""
    for k, line in enumerate(raw.split(b"\n")):
        yield first + k, line


def _decode(path, number, raw) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataFileError(f"{path}, line {number}: not valid UTF-8 ({exc.reason}); save "
                            "the file as UTF-8") from None


def _labels_like(index, values, lines):
    """Convert label strings to the dtype of ``index.classes``."""
    if index.classes.dtype.kind in "iu":
        return np.array([int(v) for v in values], dtype=np.int64)
    if index.classes.dtype.kind == "f":
        return np.array([float(v) for v in values], dtype=np.float64)
    return np.array(values, dtype=str)


def _parse_svmlight(index, raw, first, dtype):
    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(io.BytesIO(raw), n_features=index.n_features,
                                  zero_based=index.zero_based, dtype=dtype)
    except ValueError as exc:
        raise _locate_svmlight(index, raw, first, str(exc)) from None
    if not np.all(np.isfinite(X.data)):
        raise _locate_svmlight(index, raw, first, "a missing or infinite value")
    if index.classes.dtype.kind in "iu":
        y = y.astype(np.int64)
    return sp.csr_matrix(X), y


def _locate_svmlight(index, raw, first, fallback):
    """The first bad line of a chunk (sklearn's parser does not say which line)."""
    for number, line in _lines(raw, first):
        tokens = line.split(b"#", 1)[0].split()
        problem = _svmlight_problem(tokens, 0 if index.zero_based else 1, index.n_features)
        if problem:
            return DataFileError(f"{index.path}, line {number}: {problem}")
    return DataFileError(f"{index.path}, line {first}: {fallback} (in the chunk from here)")


def _svmlight_problem(tokens, lowest, n_features):
    """What is wrong with one svmlight line's tokens, or None."""
    if not tokens:
        return None
    if not _is_number(tokens[0]):
        return f"the label {_show(tokens[0])} is not a number"
    features = []
    for token in tokens[1:]:
        if token.startswith(b"qid:"):
            continue
        head, colon, value = token.partition(b":")
        if not colon or not _is_int(head) or not _is_number(value):
            return f"{_show(token)} is not index:value"
        features.append((token, int(head), float(value)))
    previous = -1
    for token, position, value in features:
        if position < lowest:
            return f"feature index {position} is below {lowest}"
        if position <= previous:
            return f"feature index {position} after {previous}; indices must increase along a line"
        if not np.isfinite(value):
            return f"{_show(token)} holds a missing or infinite value"
        previous = position
    if previous - lowest >= n_features:
        return f"feature index {previous} is beyond the {n_features} features"
    return None


def _parse_csv(index, raw, first, dtype):
    numbers, texts = [], []
    for number, line in _lines(raw, first):
        if line.strip():
            numbers.append(number)
            texts.append(_decode(index.path, number, line).strip())
    rows = list(csv.reader(texts))
    label = index.label_index
    width = index.n_columns
    for row, number in zip(rows, numbers):
        if len(row) != width:
            raise DataFileError(f"{index.path}, line {number}: {len(row)} fields, but the "
                                f"data rows have {width}; every row needs the same columns")
    columns = [j for j in range(width) if j != label]
    cells = [[row[j] for j in columns] for row in rows]
    try:
        X = np.array(cells, dtype=dtype)
    except ValueError:
        X = None
    if X is None or not np.all(np.isfinite(X)):
        for row, number in zip(cells, numbers):
            for k, cell in enumerate(row):
                what = None
                if not cell.strip():
                    what = "an empty (missing) value"
                elif not _is_number(cell):
                    what = f"{cell!r} is not a number"
                elif not np.isfinite(float(cell)):
                    what = f"{cell!r} is a missing or infinite value"
                if what:
                    column = (repr(index.header[columns[k]]) if index.header
                              else str(columns[k] + 1))
                    raise DataFileError(f"{index.path}, line {number}, column {column}: {what}")
    labels = [row[label].strip() for row in rows]
    return X, _labels_like(index, labels, numbers)


def _parse_text(index, raw, first, dtype):
    texts, labels = [], []
    for number, line in _lines(raw, first):
        if not line.strip():
            continue
        label, tab, text = _decode(index.path, number, line).rstrip("\r").partition("\t")
        if not tab or not label.strip() or not text.strip():
            raise DataFileError(f"{index.path}, line {number}: expected label<TAB>text")
        texts.append(text)
        labels.append(label.strip())
    return texts, _labels_like(index, labels, None)


# ---------------------------------------------------------------------- training
def hashing_vectorizer(n_features=DEFAULT_HASH_FEATURES, dtype=np.float64):
    """The vectorizer of streamed text: hashed word counts, l2-normalised, no vocabulary.

    Examples
    --------
    >>> hashing_vectorizer(2**10).transform(["free offer", "lecture notes"]).shape
    (2, 1024)
    """
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(n_features=int(n_features), alternate_sign=False, norm="l2",
                             dtype=dtype)


def chunk_orders(n_chunks, epochs, random_state, shuffle=True):
    """The chunk order of each epoch, as :func:`fit_stream` draws them.

    One ``RandomState(random_state)`` draws ``permutation(n_chunks)`` per epoch;
    with ``shuffle=False`` every epoch reads the chunks in file order.

    Examples
    --------
    >>> orders = chunk_orders(4, 2, random_state=0)
    >>> [sorted(o.tolist()) for o in orders]
    [[0, 1, 2, 3], [0, 1, 2, 3]]
    """
    rng = check_random_state(random_state)
    for _ in range(epochs):
        yield rng.permutation(n_chunks) if shuffle is not False else np.arange(n_chunks)


def fit_stream(estimator, path, *, chunk_size=DEFAULT_CHUNK_SIZE, epochs=None,
               random_state=None, classes=None, n_features=None, zero_based="auto",
               label_column=None, dtype=np.float64, vectorizer=None, index=None,
               on_epoch=None):
    """Train an online estimator on a data file chunk by chunk, in bounded memory.

    Every epoch visits the chunks in a fresh random order (drawn by
    :func:`chunk_orders` from ``random_state``) and calls
    ``estimator.partial_fit`` once per chunk: one pass over the chunk's rows in
    the estimator's own order (shuffled when ``estimator.shuffle`` is true,
    from ``estimator.random_state``). Training stops after the first epoch
    without a mistake, or after ``epochs`` epochs with a ``ConvergenceWarning``,
    as :meth:`fit` does. The classes come from the index pass unless given.

    Parameters
    ----------
    estimator : estimator with ``partial_fit``
        For example :class:`~rosenblatt.Perceptron` or
        :class:`~rosenblatt.AveragedPerceptron`. Trained from scratch unless
        ``warm_start=True`` and already fitted.
    path : str or path-like
        ``.svm``/``.svmlight``/``.libsvm``, ``.csv`` or ``.tsv`` (label<TAB>text).
    chunk_size : int, default=10000
        Samples per chunk: memory holds one parsed chunk.
    epochs : int, default=None
        Most passes over the file (default: ``estimator.max_iter``).
    random_state : int, RandomState or None, default=None
        Seed of the chunk order (default: ``estimator.random_state``). With
        ``estimator.shuffle=False`` the chunks are read in file order.
    classes : array-like, default=None
        Every label (default: the labels found by the index pass).
    n_features : int, default=None
        svmlight: number of columns (default: the largest index in the file).
        text: number of hashed features (default 2**20).
    zero_based : bool or "auto", default="auto"
        svmlight: whether indices start at 0.
    label_column : str or int, default=None
        CSV: the label column (default: the last).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
    vectorizer : transformer, default=None
        text: a stateless vectorizer to use instead of the hashing one.
    index : ChunkIndex, default=None
        A previous :func:`index_file` result for this file and chunk size.
    on_epoch : callable(epoch, mistakes), default=None
        Called after every epoch.

    Returns
    -------
    estimator or sklearn.pipeline.Pipeline
        The fitted estimator, with ``n_iter_`` and ``mistakes_per_epoch_``
        counting epochs over the whole file; for text, a pipeline of the
        vectorizer and the estimator.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> clf = fit_stream(Perceptron(random_state=0), path, chunk_size=2)
    >>> clf.converged_, clf.predict([[1, 1], [-1, -1]]).tolist()
    (True, [1, -1])
    """
    if not hasattr(estimator, "partial_fit"):
        raise TypeError(f"fit_stream trains with partial_fit, which {type(estimator).__name__} "
                        "does not have; use Perceptron, AveragedPerceptron or VotedPerceptron")
    if index is None:
        index = index_file(path, chunk_size, n_features=None if _is_text(path) else n_features,
                           zero_based=zero_based, label_column=label_column)
    epochs = getattr(estimator, "max_iter", 100) if epochs is None else epochs
    if not (isinstance(epochs, (int, np.integer)) and epochs >= 1):
        raise ValueError(f"epochs must be a positive int; got {epochs!r}")
    classes = index.classes if classes is None else np.asarray(classes)
    if index.format == "text" and vectorizer is None:
        vectorizer = hashing_vectorizer(n_features or DEFAULT_HASH_FEATURES, dtype)
    if random_state is None:
        random_state = getattr(estimator, "random_state", None)
    if not (getattr(estimator, "warm_start", False) and hasattr(estimator, "classes_")):
        _forget(estimator)
    history = []
    orders = chunk_orders(index.n_chunks, epochs, random_state,
                          getattr(estimator, "shuffle", True))
    converged = False
    for order in orders:
        mistakes = 0
        for X, y in iter_chunks(path, order=order, index=index, dtype=dtype):
            if vectorizer is not None:
                X = vectorizer.transform(X)
            estimator.partial_fit(X, y, classes=classes)
            mistakes += int(estimator.mistakes_per_epoch_[-1])
        history.append(mistakes)
        _set_history(estimator, history)
        if on_epoch is not None:
            on_epoch(len(history), mistakes)
        if getattr(estimator, "verbose", 0):
            print(f"-- Streamed epoch {len(history)}: {mistakes} mistake(s)")
        if mistakes == 0:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"{type(estimator).__name__} did not converge: the last of {epochs} streamed "
            f"epochs still made {history[-1]} mistake(s). The data may not be linearly "
            "separable; raise epochs, or use AveragedPerceptron.",
            ConvergenceWarning,
        )
    if vectorizer is not None:
        from sklearn.pipeline import Pipeline

        return Pipeline([("vectorizer", vectorizer), ("classifier", estimator)])
    return estimator


def _is_text(path) -> bool:
    return data_format(path) == "text"


def _forget(estimator):
    """Make the next partial_fit start from scratch (fit's reset, for a streamed fit)."""
    for name in ("_W", "_rng"):
        if hasattr(estimator, name):
            delattr(estimator, name)


def _set_history(estimator, history):
    """Count epochs over the whole file, not partial_fit calls."""
    estimator.n_iter_ = len(history)
    estimator.mistakes_per_epoch_ = list(history)
    estimator.n_mistakes_ = int(sum(history))
    estimator.converged_ = history[-1] == 0


def score_stream(model, path, *, chunk_size=DEFAULT_CHUNK_SIZE, zero_based="auto",
                 label_column=None, index=None, dtype=np.float64):
    """Accuracy of a fitted model on a data file, read chunk by chunk.

    For svmlight the model's ``n_features_in_`` fixes the chunks' width.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> clf = fit_stream(Perceptron(random_state=0), path, chunk_size=2)
    >>> score_stream(clf, path, chunk_size=3)
    1.0
    """
    if index is None:
        width = None if _is_text(path) else getattr(_final(model), "n_features_in_", None)
        index = index_file(path, chunk_size, n_features=width, zero_based=zero_based,
                           label_column=label_column)
    right = total = 0
    for X, y in iter_chunks(path, index=index, dtype=dtype):
        right += int(np.sum(model.predict(X) == y))
        total += len(y)
    return right / total


def _final(model):
    return model.steps[-1][1] if hasattr(model, "steps") else model


# ---------------------------------------------------------------------- CLI hook
STREAM_ALGORITHMS = ("perceptron", "averaged", "voted")


def train_stream(path, algorithm="perceptron", chunk_size=DEFAULT_CHUNK_SIZE, epochs=100,
                 seed=0, *, eta=1.0, n_features=None, zero_based="auto", label_column=None,
                 evaluate=True, on_epoch=None):
    """Train on a data file too large for memory; what ``rosenblatt train --stream`` runs.

    Parameters
    ----------
    path : str or path-like
    algorithm : {"perceptron", "averaged", "voted"}, default="perceptron"
        The online algorithms (the others need the whole data set at once).
    chunk_size : int, default=10000
    epochs : int, default=100
    seed : int, default=0
        Seed of the chunk order and of the row order inside chunks.
    eta : float, default=1.0
    n_features : int, default=None
        svmlight: columns (default: from the file); text: hashed features (2**20).
    zero_based : bool or "auto", default="auto"
    label_column : str or int, default=None
    evaluate : bool, default=True
        Stream the file once more to measure the training accuracy.
    on_epoch : callable(epoch, mistakes), default=None

    Returns
    -------
    model : estimator or Pipeline
        A pipeline with the hashing vectorizer for text files.
    summary : dict
        JSON-ready: ``data_format``, ``trained_on``, ``algorithm``, ``n_samples``,
        ``n_features``, ``n_chunks``, ``chunk_size``, ``classes``, ``epochs``,
        ``mistakes``, ``mistakes_per_epoch``, ``converged``, ``train_accuracy``
        (None unless ``evaluate``), ``seconds``, ``notes``, and ``zero_based`` /
        ``label_column`` where they apply (keep them as model metadata).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> model, summary = train_stream(path, "averaged", chunk_size=2, epochs=10)
    >>> summary["converged"], summary["n_chunks"], summary["train_accuracy"]
    (True, 2, 1.0)
    """
    from .linear import AveragedPerceptron, Perceptron, VotedPerceptron

    if algorithm not in STREAM_ALGORITHMS:
        raise ValueError(f"--stream trains the online algorithms {', '.join(STREAM_ALGORITHMS)}; "
                         f"{algorithm!r} needs the whole data set in memory")
    cls = {"perceptron": Perceptron, "averaged": AveragedPerceptron,
           "voted": VotedPerceptron}[algorithm]
    estimator = cls(max_iter=epochs, eta=eta, random_state=seed)
    text = _is_text(path)
    index = index_file(path, chunk_size, n_features=None if text else n_features,
                       zero_based=zero_based, label_column=label_column)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model = fit_stream(estimator, path, epochs=epochs, random_state=seed, index=index,
                           n_features=n_features, on_epoch=on_epoch)
    seconds = time.perf_counter() - start
    accuracy = score_stream(model, path, index=index) if evaluate else None
    summary = {
        "data_format": index.format,
        "trained_on": os.path.basename(index.path),
        "algorithm": algorithm,
        "n_samples": index.n_samples,
        "n_features": int(estimator.n_features_in_),
        "n_chunks": index.n_chunks,
        "chunk_size": index.chunk_size,
        "classes": estimator.classes_.tolist(),
        "epochs": estimator.n_iter_,
        "mistakes": estimator.n_mistakes_,
        "mistakes_per_epoch": [int(m) for m in estimator.mistakes_per_epoch_],
        "converged": bool(estimator.converged_),
        "train_accuracy": accuracy,
        "seconds": seconds,
        "notes": [" ".join(str(w.message).split()) for w in caught
                  if issubclass(w.category, ConvergenceWarning)],
    }
    if index.zero_based is not None:
        summary["zero_based"] = index.zero_based
    if label_column is not None:
        summary["label_column"] = label_column
    return model, summary
