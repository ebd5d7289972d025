"""Standard input as training data: read once, chunk by chunk, kept in a cache as it comes.

Part of :mod:`rosenblatt.data.streaming`. A file is scanned whole before training (its
classes, its width, where its chunks start) and its binary cache is read every epoch; a
pipe can be read only once, as it comes. :class:`InputChunks` reads standard input with
the prediction reader (:class:`~rosenblatt.data.readers.Stream`: the same checks and
messages as a file, lines counted from the input's start) and hands out chunks of
``chunk_size`` samples in arrival order, each as soon as it is complete, holding one chunk
and one block of lines at a time. Given a cache folder, it appends every chunk to a binary
cache there as it hands it out (as Vowpal Wabbit's ``-c``): when the input ends, its
:attr:`~InputChunks.schema` reads as a scanned file's, and the epochs after the first read
the cache. How the input is cut into blocks as it arrives (its pauses, ``block_lines``)
never changes the chunks.

What a scan decides from the whole file, a pipe cannot: svmlight input needs its index
base (``zero_based`` True or False) and its width (``n_features``) up front. The classes
are those met so far (a learner that learns the classes it meets takes each new one with
the chunk it first appears in).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .._core.config import CACHE_FORMAT_VERSION
from .._core.validation import CHUNK_SIZE, check_args
from ..exceptions import DataFileError
from .readers import Schema, Stream
from .readers._cache import CacheWriter
from .readers._common import STDIN, STDIN_NAME, fail, format_of
from .readers._store import Rows

__all__ = ["InputChunks"]


class InputChunks:
    """Standard input, read once in chunks of ``chunk_size`` samples for training.

    Iterate once for the chunks, ``(X, y)`` as a scanned file's chunks read (float64 unless
    ``dtype``), in the order they arrive; then ``schema`` describes what was read (the
    sorted classes, the rows of each chunk, the width, what reading decided) and, with a
    ``cache``, reads the same chunks back from it.

    Parameters
    ----------
    format : {"csv", "svmlight", "tsv"}
        The input's format (standard input has no extension to tell it: None is refused,
        saying so).
    chunk_size : int
        Samples per chunk (the last one may hold fewer).
    n_features : int, default=None
        svmlight: the number of features, required (an index beyond it is an error naming
        its line); CSV: the feature columns expected (default: the first record's).
    zero_based : bool or "auto", default="auto"
        svmlight: whether indices start at 0, required (True or False: "auto" decides by
        the whole file).
    label_column, header, id_columns, ignore
        CSV, as :func:`~rosenblatt.data.readers.scan` takes them.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
    cache : str or path-like, default=None
        A folder to write the rows to as they are read (made if missing; its cache files
        are replaced): the epochs after the first read it. None: nothing is kept.
    keep : bool, default=False
        Keep the cache when the chunks are closed (:meth:`close`); else it is removed, the
        whole folder with it.
    block_lines : int, default=None
        Lines read at a time (default ``chunk_size``); a block also ends where the input
        pauses. Changes when chunks are complete, never what they hold.

    Examples
    --------
    >>> import io, sys
    >>> sys.stdin = io.TextIOWrapper(io.BytesIO(b"1,2,a\\n3,4,b\\n5,6,a\\n"))
    >>> chunks = InputChunks("csv", 2)
    >>> [(X.tolist(), y.tolist()) for X, y in chunks]
    [([[1.0, 2.0], [3.0, 4.0]], ['a', 'b']), ([[5.0, 6.0]], ['a'])]
    >>> chunks.schema.n_rows.tolist(), chunks.schema.classes.tolist()
    ([2, 1], ['a', 'b'])
    >>> sys.stdin = sys.__stdin__
    """

    def __init__(
        self,
        format: str | None,
        chunk_size: int,
        *,
        n_features: int | None = None,
        zero_based: bool | str = "auto",
        label_column: str | int | None = None,
        header: bool | str = "auto",
        id_columns: Sequence[str | int] | None = None,
        ignore: Sequence[str] | None = None,
        dtype: Any = np.float64,
        cache: str | os.PathLike[str] | None = None,
        keep: bool = False,
        block_lines: int | None = None,
    ) -> None:
        check_args("InputChunks", {"chunk_size": [CHUNK_SIZE]}, {"chunk_size": chunk_size})
        if format is None:
            raise DataFileError(
                f"{STDIN_NAME}: standard input has no extension to tell its format; give "
                "format='csv' (or 'svmlight', 'tsv')"
            )
        self.kind = format_of(STDIN, format)
        if self.kind == "svmlight" and (zero_based not in (True, False) or n_features is None):
            raise DataFileError(
                f"{STDIN_NAME}: svmlight lines number their features, and standard input is "
                "read once as it comes: give their index base (zero_based=True or False) "
                "and the number of features (n_features=N, the largest index plus one "
                "when zero-based) before it is read"
            )
        self.chunk_size, self.dtype = int(chunk_size), np.dtype(dtype)
        self.stream = Stream(
            STDIN,
            int(block_lines or chunk_size),
            format=format,
            labelled=True,
            n_features=n_features,
            zero_based=zero_based if self.kind == "svmlight" else None,
            header=header,
            label_column=label_column,
            id_columns=id_columns,
            ignore=ignore,
        )
        self.n_features = n_features if self.kind != "text" else None
        self.zero_based = bool(zero_based) if self.kind == "svmlight" else None
        self.folder, self.keep = (None if cache is None else os.fspath(cache)), bool(keep)
        self._writer: CacheWriter | None = None
        self._labels: dict[Any, int] = {}  # each label met, by first appearance: its cache id
        self._n_rows: list[int] = []
        self._read = False
        self.schema: Schema | None = None

    # ------------------------------------------------------------------ the chunks
    def __iter__(self) -> Iterator[tuple[Any, np.ndarray]]:
        if self._read:
            raise ValueError("standard input is read once: its chunks were handed out already")
        self._read = True
        if self.folder is not None:
            key = {"version": CACHE_FORMAT_VERSION, "path": STDIN, "format": self.kind}
            self._writer = CacheWriter(self.folder, self.kind, True, key, not self.keep)
        try:
            yield from self._chunks()
            self._finish()
        except BaseException:
            if self._writer is not None:
                self._writer.abort()
                self._writer = None
            raise

    def _blocks(self) -> Iterator[Any]:
        """The stream's blocks; an index beyond ``n_features`` advised as standard input
        can be (its count is given before it is read: there is no file's to use)."""
        try:
            yield from self.stream
        except DataFileError as error:
            if getattr(error, "code", None) != "index-beyond":
                raise
            fix = "pass a larger n_features (standard input's is given before it is read)"
            raise fail(STDIN_NAME, error.line, error.what or str(error), fix, error.code) from None

    def _chunks(self) -> Iterator[tuple[Any, np.ndarray]]:
        parts: list[tuple[Any, np.ndarray]] = []
        held = 0
        for data in self._blocks():
            assert data.y is not None  # read labelled
            parts.append((data.X, data.y))
            held += len(data.y)
            while held >= self.chunk_size:
                chunk, parts = _split(_joined(parts), self.chunk_size)
                held -= self.chunk_size
                yield self._handed(*chunk)
        if held:
            yield self._handed(*_joined(parts))

    def _handed(self, X: Any, y: np.ndarray) -> tuple[Any, np.ndarray]:
        """A complete chunk: counted, its labels numbered, written to the cache; as
        training reads it (``dtype``)."""
        self._n_rows.append(len(y))
        ids = np.array([self._labels.setdefault(v, len(self._labels)) for v in y.tolist()])
        if self._writer is not None:
            self._write(X, ids.astype(np.int32))
        if self.kind != "text" and X.dtype != self.dtype:
            X = X.astype(self.dtype)
            values = X.data if self.kind == "svmlight" else X
            if not np.all(np.isfinite(values)):
                raise DataFileError(
                    f"{STDIN_NAME}: a value of rows {sum(self._n_rows[:-1]) + 1} to "
                    f"{sum(self._n_rows)} is beyond the range of {self.dtype}; train in float64"
                )
        return X, y

    def _write(self, X: Any, ids: np.ndarray) -> None:
        """Append a chunk's rows to the cache (a disk that cannot take them is said)."""
        assert self._writer is not None
        n = len(ids)
        payload: dict[str, Any]
        if self.kind == "svmlight":  # indices as written, as a scan keeps them
            base = 0 if self.zero_based else 1
            payload = dict(indptr=X.indptr, indices=X.indices + base, values=X.data)
        elif self.kind == "csv":
            payload = dict(X=X)
        else:
            payload = dict(documents=X)
        rows = Rows(n, np.zeros(n, np.int64), np.zeros(n, np.int64), ids, **payload)
        try:
            self._writer.add(rows)
        except OSError as error:
            raise OSError(
                error.errno,
                f"cannot write the cache of standard input in {self.folder} "
                f"({error.strerror or error}); give cache= a folder on a disk with room for "
                "the rows, or train one epoch (no cache)",
            ) from None

    # ------------------------------------------------------------------ the end
    def _finish(self) -> None:
        """The schema of what was read, its cache finished (its manifest written last)."""
        stream, n_chunks = self.stream, len(self._n_rows)
        first = stream.schema
        values = list(self._labels)
        text = bool(values) and isinstance(values[0], str)
        classes = np.array(sorted(values), dtype=str if text else np.int64)
        n_features = self.n_features
        if first is not None and self.kind == "csv":
            n_features = first.n_features
        schema = Schema(
            path=STDIN_NAME,
            format=self.kind,
            chunk_size=self.chunk_size,
            offsets=np.zeros(n_chunks + 1, dtype=np.int64),
            first_lines=np.zeros(n_chunks, dtype=np.int64),
            n_rows=np.array(self._n_rows, dtype=np.int64),
            classes=classes,
            n_features=n_features,
            zero_based=self.zero_based,
            label_index=None if first is None else first.label_index,
            header=None if first is None else first.header,
            n_columns=None if first is None else first.n_columns,
            aside=None if first is None else first.aside,
            notes=list(stream.notes),
            labelled=True,
            label_kind="text" if text else "int",
            label_map={value: value for value in values},
            source=STDIN,
        )
        if self._writer is not None:
            self._writer.finish(schema, values)
            self._writer = None
        self.schema = schema

    @property
    def started(self) -> bool:
        """Whether the chunks were asked for (standard input is read once)."""
        return self._read

    @property
    def n_samples(self) -> int:
        """Samples handed out so far (all of them once the input ended)."""
        return int(sum(self._n_rows))

    def close(self) -> None:
        """Remove the cache unless it is kept (``keep``); nothing else to free."""
        if self._writer is not None:
            self._writer.abort()
            self._writer = None
        if self.schema is not None:
            self.schema.close()


def _joined(parts: list[tuple[Any, np.ndarray]]) -> tuple[Any, np.ndarray]:
    """The blocks' rows as one: stacked CSR or dense rows, or the documents' list."""
    if len(parts) == 1:
        return parts[0]
    Xs, ys = zip(*parts)
    y = np.concatenate(ys)
    if isinstance(Xs[0], list):
        return [doc for X in Xs for doc in X], y
    if isinstance(Xs[0], np.ndarray):
        return np.concatenate(Xs), y
    import scipy.sparse as sp

    X = sp.vstack(Xs, format="csr")
    X.has_sorted_indices = True  # each row's indices increase: the reader checks it
    return X, y


def _split(part: tuple[Any, np.ndarray], n: int) -> tuple[tuple[Any, np.ndarray], list]:
    """The first ``n`` rows of ``part``, and the rest (as the parts left to join)."""
    X, y = part
    rest = [] if len(y) == n else [(X[n:], y[n:])]
    return (X[:n], y[:n]), rest


class InputEpochs:
    """The batches of every epoch of a fit on standard input (``fit_batches``' ``batches``).

    The first call gives ``chunks``' chunks as standard input is read; the later ones read
    its cache (:class:`~rosenblatt.data.streaming.StreamEpochs` on its schema), every
    chunk once in a fresh order drawn from ``random_state``: the orders of a file's run
    from its second epoch on (the first epoch's draw, whose place arrival order took, is
    drawn and set aside). Use it as a context manager (the cache's reader).

    Parameters
    ----------
    chunks : InputChunks
    epochs : int
    random_state : int, RandomState, Generator or None
    shuffle : bool
    dtype : numpy dtype
    vectorizer : transformer or None
    on_progress : callable(StreamProgress) or None
    two_classes : bool, default=False
        Refuse a first chunk of one class, saying so (a learner that learns the classes it
        meets starts from a chunk of two).
    """

    def __init__(
        self,
        chunks: InputChunks,
        epochs: int,
        random_state: Any,
        shuffle: Any,
        dtype: Any,
        vectorizer: Any,
        on_progress: Any,
        two_classes: bool = False,
    ) -> None:
        self.chunks, self.epochs, self.random_state = chunks, epochs, random_state
        self.shuffle, self.dtype, self.vectorizer = shuffle, dtype, vectorizer
        self.on_progress, self.two_classes = on_progress, two_classes
        self._later: Any = None

    def __enter__(self) -> InputEpochs:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._later is not None:
            self._later.__exit__(*exc_info)
            self._later = None

    def __call__(self) -> Iterator[tuple[Any, Any]]:
        if self._later is not None:
            return self._later()
        if not self.chunks.started:
            return self._first()
        schema = self.chunks.schema
        if schema is None or schema.cache is None:
            raise ValueError(
                "standard input is read once: an epoch after the first reads its cache, "
                "and these chunks were read without one"
            )
        from ._stream_epochs import StreamEpochs

        later = StreamEpochs(
            STDIN,
            schema,
            self.epochs,
            self.random_state,
            self.shuffle,
            self.dtype,
            self.vectorizer,
            self.on_progress,
        )
        later.__enter__()
        later()  # the first epoch's chunk order: standard input came in its own
        self._later = later
        return later()

    def _first(self) -> Iterator[tuple[Any, Any]]:
        import time

        from ._stream_index import StreamProgress

        start = time.perf_counter()
        for X, y in self.chunks:
            if self.two_classes and self.chunks.n_samples == len(y) and len(set(y.tolist())) < 2:
                raise ValueError(
                    f"{STDIN_NAME}: the first chunk (rows 1 to {len(y)}) holds only the class "
                    f"{y[0].item()!r}; a model that learns the classes it meets starts from a "
                    "chunk of two classes or more: give a larger chunk_size, or shuffle the "
                    "rows first (or, from Python, give fit_stream the classes)"
                )
            yield (X if self.vectorizer is None else self.vectorizer.transform(X)), y
            if self.on_progress is not None:
                rows = self.chunks.n_samples
                seconds = time.perf_counter() - start
                self.on_progress(StreamProgress("train", 1, self.epochs, rows, None, 0, 0, seconds))
