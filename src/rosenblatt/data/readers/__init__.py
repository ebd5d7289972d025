"""One reader per data file format, shared by in-memory reading, streaming and the datasets.

Formats go by extension, optionally gzipped (``.csv.gz``, ...):

- ``.csv``: numeric features and a label column, RFC 4180 quoting, an optional
  header (:mod:`._csv`);
- ``.svm``, ``.libsvm``, ``.svmlight``: ``label index:value ...`` lines, sparse (:mod:`._svmlight`);
- ``.tsv``: labelled text, ``label<TAB>text`` per line (:mod:`._tsv`).

Each format has two halves:

1. :func:`scan` reads the whole file once, parsing every record, and fixes its
   :class:`Schema`: header, columns or features, index base, label column, the
   kind and set of labels, the number of samples and, given ``chunk_size``, where
   each chunk of that many samples starts (always between records). ``notes``
   say what "auto" options decided. The parsed records go to a store
   (:mod:`._store`): nowhere, memory (:func:`read`), or a binary cache on disk
   (``cache=``, :mod:`._cache`) that chunks are then read from.
2. :func:`parse` turns a block of whole records into ``(X, y)`` against the schema.

:func:`read` is a scan into memory; :func:`iter_chunks` is a scan with chunks and
then a read per chunk, from the cache or parsed from the text; :class:`Stream`
(prediction) reads a file or standard input once, each block of lines as the rest
of the same file (:mod:`._stream`); so a file reads the same every way, and fails
the same way: a :class:`~rosenblatt.exceptions.DataFileError`
reading ``"<path>, line N: <what is wrong>; <what to do>"``. Every check of a row
looks at it and at the rows before it, so the error is the first bad row's in file
order, whatever kind of badness and whatever the block size.

Large files are parsed by compiled parsers (``engine/kernels/textparse.py``:
svmlight lines, and CSV lines without quotes), small ones by the Python readers,
which give the same result without loading numba; numbers are what ``float()``
reads, bit for bit, either way.

Labels follow one rule everywhere (see :mod:`._labels`): equal numbers are one class,
whole numbers become int64, text stays text, anything else is an error.
"""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.config import DEFAULT_CHUNK_SIZE, GZIP_TEMP_PREFIX
from ..._core.validation import CHUNK_SIZE, NONE, Options, check_args
from ...exceptions import DataFileError
from . import _cache, _csv, _svmlight, _tsv
from ._common import (
    FORMAT_NAMES,
    FORMATS,
    STDIN,
    GzipCopy,
    check_file,
    data_format,
    format_of,
    is_gzip,
    read_bytes,
    shown_name,
)
from ._schema import Chunker, Data, Schema
from ._store import MemoryStore, NullStore, assemble
from ._stream import Stream, check_aside, sniff_format

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "FORMATS",
    "FORMAT_NAMES",
    "format_of",
    "Data",
    "Schema",
    "Stream",
    "check_aside",
    "compile_parsers",
    "data_format",
    "iter_chunks",
    "parse",
    "read",
    "read_chunk",
    "scan",
    "sniff_format",
]

_READERS = {"csv": _csv, "svmlight": _svmlight, "text": _tsv}


#: The reader options each format does not decide, in the estimators' constraint language.
_OPTION_CONSTRAINTS = {
    "chunk_size": [CHUNK_SIZE, NONE],
    "zero_based": [Options((True, False, "auto"))],
    "header": [Options((True, False, "auto"))],
    "extra_features": [Options(("error", "ignore"))],
}


def check_options(
    kind: str,
    name: str,
    chunk_size: int | None,
    zero_based: bool | str,
    header: bool | str,
    label_column: str | int | None,
    names: Sequence[str] | None,
    owner: str = "the reader",
    extra_features: str = "error",
) -> None:
    """Refuse reader options of the wrong type or value, or that ``kind`` does not take.

    Parameters
    ----------
    kind : {"csv", "svmlight", "text"}
        The file's format.
    name : str
        The file's name, as shown to users.
    chunk_size, zero_based, header, label_column, names, extra_features
        The options of :func:`read` and :func:`scan`.
    owner : str, default="the reader"
        The function the options were given to, as errors name it.

    Raises
    ------
    ValueError
        An option's value is invalid, worded as an estimator's invalid parameter.
    DataFileError
        An option does not apply to files of ``kind``.

    Examples
    --------
    >>> check_options("csv", "d.csv", 0, "auto", True, None, None, owner="scan")
    Traceback (most recent call last):
    ...
    rosenblatt._core.validation.ParameterError: The 'chunk_size' argument of scan must be an \
int in the range [1, inf) (finite) or an instance of None; got 0.
    """
    values = {
        "chunk_size": chunk_size,
        "zero_based": zero_based,
        "header": header,
        "extra_features": extra_features,
    }
    check_args(owner, _OPTION_CONSTRAINTS, values)
    if label_column is not None and kind != "csv":
        raise DataFileError(
            f"{name}: label_column only applies to .csv files; {kind} files "
            "keep the label first on each line"
        )
    if header != "auto" and kind != "csv":
        raise DataFileError(f"{name}: header only applies to .csv files")
    if zero_based != "auto" and kind != "svmlight":
        raise DataFileError(f"{name}: zero_based only applies to svmlight files")
    if extra_features != "error" and kind != "svmlight":
        raise DataFileError(
            f"{name}: extra_features only applies to svmlight files (a CSV file's columns "
            "are the model's, or set aside by name)"
        )
    if names is not None and kind == "svmlight":
        raise DataFileError(
            f"{name}: svmlight labels are numbers; names only apply to .csv and .tsv files"
        )


def _scan(
    name, kind, handle, chunk_size, *, encoding, store=None, progress=None, at_hand=False, **options
):
    if name == STDIN or at_hand:  # no file to stat: the bytes read give the size
        size, mtime_ns = len(handle.getbuffer()), 0
    else:
        stat = os.stat(name)
        size, mtime_ns = stat.st_size, stat.st_mtime_ns
    schema = Schema(
        path=shown_name(name),
        format=kind,
        chunk_size=chunk_size,
        offsets=np.zeros(1, dtype=np.int64),
        first_lines=np.zeros(0, dtype=np.int64),
        n_rows=np.zeros(0, dtype=np.int64),
        classes=np.zeros(0, dtype=np.int64),
        size=size,
        mtime_ns=mtime_ns,
        source=name,
        encoding=encoding,
    )
    store = NullStore() if store is None else store
    if progress is not None:
        handle = _Counted(handle, store, progress)
    try:
        end, chunks, keys = _READERS[kind].scan(
            schema, handle, Chunker(chunk_size), store, **options
        )
        chunks.fill(schema, end)
        store.finish(schema, keys)
    except BaseException:
        store.abort()
        raise
    return schema


class _Counted:
    """A file that reports the bytes read so far and the records parsed to ``progress``."""

    def __init__(self, handle, store, progress):
        self.handle, self.store, self.progress, self.done = handle, store, progress, 0

    def read(self, size=-1):
        block = self.handle.read(size)
        self.done += len(block)
        self.progress(self.done, self.store.count)
        return block


def scan(
    path: str | os.PathLike[str],
    chunk_size: int | None = None,
    *,
    format: str | None = None,
    labelled: bool | None = True,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    label_column: str | int | None = None,
    names: Sequence[str] | None = None,
    encoding: str = "UTF-8",
    cache: bool | str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], Any] | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
    extra_features: str = "error",
) -> Schema:
    """Read a data file once and fix its schema and, given ``chunk_size``, its chunks.

    The scan parses every record (that is how it checks the whole file); with
    ``cache`` it also writes them to a binary cache, and chunks are then read
    from the cache instead of the text (:mod:`._cache`).

    Parameters
    ----------
    path : str or path-like
        A ``.csv``, ``.svm``/``.libsvm``/``.svmlight`` or ``.tsv`` file, or one of
        them gzipped (``.csv.gz``, ...); any other name with ``format``. ``"-"``
        reads standard input (with ``format``; not in chunks). Streaming a gzipped
        file without a cache decompresses it once to a temporary file, removed when
        the schema goes away (or at exit).
    chunk_size : int, default=None
        Samples per chunk; None: the whole file is one chunk.
    format : {"csv", "svmlight", "tsv"}, default=None
        Default: from the extension. Also accepted: "libsvm" and "svm" for
        svmlight, "text" for tsv.
    labelled : bool or None, default=True
        Whether the file has labels; None decides (for prediction): CSV by its
        number of columns against ``n_features``, svmlight by whether lines start
        with ``index:value``, text by whether the first line holds a tab (then every
        line needs one; without, no line may hold one).
    n_features : int, default=None
        CSV: the number of feature columns expected. svmlight: the number of
        columns of ``X``; an index beyond it is an error (see ``extra_features``).
        Default: the file's.
    zero_based : bool or "auto", default="auto"
        svmlight: whether feature indices start at 0. "auto": zero-based when an
        index 0 occurs anywhere in the file, else one-based (with a note).
    header : bool or "auto", default="auto"
        CSV: whether the first record is a header; "auto" takes it as one only
        when it cannot be data and looks like names (see :mod:`._csv`).
    label_column : str or int, default=None
        CSV: the label column by header name or 0-based index (negative counts
        from the end); default the last.
    names : sequence of str, default=None
        CSV and text: the allowed labels; ``y`` holds each label's position here.
    encoding : str, default="UTF-8"
        CSV and text (an ASCII-compatible encoding).
    cache : None, False, True or path-like, default=None
        None or False: no cache (chunks are parsed from the text when read). True:
        a cache in a temporary folder, removed with the schema (:meth:`Schema.close`,
        garbage collection, or exit). A folder: the cache is kept there, and a
        later scan with the same options reuses it while the file keeps its size
        and modification time (else it is rebuilt).
    progress : callable(bytes_read, records), default=None
        Called as the scan reads the file.
    id_columns : sequence of str or int, default=None
        CSV: columns (header names, or 0-based indices) that identify a sample: no
        features (``Schema.aside``, left out of ``feature_names``); names imply a header.
    ignore : sequence of str, default=None
        CSV: columns, by header name, that are neither features nor label.
    extra_features : {"error", "ignore"}, default="error"
        svmlight with ``n_features`` (a model's): whether an index beyond it is an
        error, or its entry is left out (a feature the model has no weight for, so
        weight 0); ``schema.extra_rows`` counts the rows that held one.

    Returns
    -------
    Schema

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> schema = scan(path, chunk_size=3)
    >>> schema.n_rows.tolist(), schema.classes.tolist(), schema.n_features, schema.zero_based
    ([3, 1], [-1, 1], 2, False)
    >>> print(schema.notes[0][:71])
    svmlight feature indices read as one-based: no index 0 in the file (the
    """
    name = check_file(path)
    kind = format_of(name, format)
    check_options(
        kind,
        shown_name(name),
        chunk_size,
        zero_based,
        header,
        label_column,
        names,
        "scan",
        extra_features,
    )
    check_aside(kind, shown_name(name), id_columns, ignore)
    if name == STDIN and (chunk_size is not None or cache not in (None, False)):
        raise DataFileError(
            f"{shown_name(name)}: standard input can only be read whole, and streaming "
            "reads its file in chunks, again each epoch; save the data to a file first"
        )
    options = dict(
        labelled=labelled,
        n_features=n_features,
        zero_based=zero_based,
        header=header,
        label_column=label_column,
        names=None if names is None else list(names),
        encoding=encoding,
        **_aside_options(id_columns, ignore),
        extra_features=extra_features,
    )
    if cache is None or cache is False or cache is True:
        return _scan_file(name, kind, chunk_size, cache, progress, options)
    with _folder_lock(cache):  # one thread at a time reuses or builds a kept cache
        return _scan_file(name, kind, chunk_size, cache, progress, options)


def _aside_options(
    id_columns: Sequence[str | int] | None, ignore: Sequence[str] | None
) -> dict[str, list]:
    """The CSV scan's options for columns set aside (none: none, so that a kept cache's key
    stays what it was)."""
    given = {"id_columns": id_columns, "ignore": ignore}
    return {option: list(columns) for option, columns in given.items() if columns}


_FOLDER_LOCKS: dict[str, threading.Lock] = {}


def _folder_lock(folder: str | os.PathLike[str]) -> threading.Lock:
    """The lock of a kept cache's folder: threads scanning into it at once would interleave
    its files (the later ones finding the earlier's half written)."""
    return _FOLDER_LOCKS.setdefault(os.path.realpath(folder), threading.Lock())  # atomic


if hasattr(os, "register_at_fork"):  # POSIX: Windows has no fork
    # a fork copies the locks as they are, held by threads the child does not have: its own
    # scans into those folders would wait for ever
    os.register_at_fork(after_in_child=_FOLDER_LOCKS.clear)


def _scan_file(
    name: str,
    kind: str,
    chunk_size: int | None,
    cache: bool | str | os.PathLike[str] | None,
    progress: Callable[[int, int], Any] | None,
    options: dict[str, Any],
) -> Schema:
    """:func:`scan` of a file whose arguments are checked."""
    store = None
    if cache is not None and cache is not False:
        store = _cache_store(name, kind, chunk_size, cache, options)
        if isinstance(store, Schema):
            return store  # a kept cache of this file, read with these options
    handle: Any
    if name == STDIN:
        handle = io.BytesIO(read_bytes(name))
        return _scan(name, kind, handle, None, store=store, progress=progress, **options)
    if not is_gzip(name):
        with open(name, "rb") as handle:
            return _scan(name, kind, handle, chunk_size, store=store, progress=progress, **options)
    if chunk_size is None or store is not None:  # nothing to read again: no copy
        if chunk_size is None:
            handle = io.BytesIO(read_bytes(name))
        else:
            handle = _GzipReader(name)
        return _scan(name, kind, handle, chunk_size, store=store, progress=progress, **options)
    copy = GzipCopy(name)
    try:
        schema = _scan(name, kind, copy, chunk_size, progress=progress, **options)
    except BaseException:
        copy.remove()
        raise
    copy.close()
    schema.source = copy.name
    schema.remove_source_with_self(copy.remove)
    return schema


def _cache_store(name, kind, chunk_size, cache, options):
    """The cache writer for a scan, or the schema of a kept cache that is still good."""
    stat = os.stat(name)
    key = _cache.cache_key(name, stat, kind, chunk_size, options)
    if cache is True:
        return _cache.CacheWriter(_cache.new_folder(), kind, options["labelled"], key, True)
    folder = os.fspath(cache)
    kept = _cache.load(folder, key, Schema)
    if kept is not None:
        return kept
    return _cache.CacheWriter(folder, kind, options["labelled"], key, False)


class _GzipReader:
    """A gzip file read once from the start (its records go to a cache)."""

    def __init__(self, path):
        import gzip

        self.path, self.handle = path, gzip.open(path, "rb")

    def read(self, size=-1):
        import zlib

        from ._common import gzip_error

        try:
            return self.handle.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            self.handle.close()
            raise gzip_error(self.path, exc) from None


def parse(
    schema: Schema, raw: bytes, first_line: int, *, dtype: DTypeLike = np.float64
) -> tuple[Any, np.ndarray | None]:
    """Parse a block of whole records of a scanned file.

    Parameters
    ----------
    schema : Schema
    raw : bytes
        The block, starting at a record (a chunk's bytes, or the whole data).
    first_line : int
        The 1-based line the block starts on (for messages).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64

    Returns
    -------
    X : ndarray (CSV), csr_matrix (svmlight) or list of str (text)
    y : ndarray or None

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> _ = path.write_text("a,b,y\\n1,2,0\\n3,4,1\\n5,6,0\\n")
    >>> schema = scan(path, chunk_size=2)
    >>> raw = path.read_bytes()[schema.offsets[1]:schema.offsets[2]]
    >>> X, y = parse(schema, raw, schema.first_lines[1])
    >>> X.tolist(), y.tolist(), int(schema.first_lines[1])
    ([[5.0, 6.0]], [0], 4)
    """
    return _READERS[schema.format].parse(schema, raw, int(first_line), dtype)


def read(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    labelled: bool | None = True,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    label_column: str | int | None = None,
    names: Sequence[str] | None = None,
    encoding: str = "UTF-8",
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
    extra_features: str = "error",
) -> Data:
    """Read a whole data file: a :func:`scan` and a :func:`parse` of all its records.

    Parameters are those of :func:`scan` (without ``chunk_size``); the cells of the
    ``id_columns`` and ``ignore`` columns are in ``Data.aside``.

    Returns
    -------
    Data

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.csv"
    >>> _ = path.write_text('x1,x2,label\\n-1,-1,no\\n1,-1,yes\\n-1,1,"yes"\\n1,1,yes\\n')
    >>> data = read(path)
    >>> data.X.shape, data.y.tolist(), data.feature_names
    ((4, 2), ['no', 'yes', 'yes', 'yes'], ['x1', 'x2'])
    """
    name = check_file(path)
    kind = format_of(name, format)
    check_options(
        kind,
        shown_name(name),
        None,
        zero_based,
        header,
        label_column,
        names,
        "read",
        extra_features,
    )
    check_aside(kind, shown_name(name), id_columns, ignore)
    options = dict(
        labelled=labelled,
        n_features=n_features,
        zero_based=zero_based,
        header=header,
        label_column=label_column,
        names=names,
        encoding=encoding,
        **_aside_options(id_columns, ignore),
        extra_features=extra_features,
    )
    return parse_bytes(name, kind, read_bytes(name), options)


def parse_bytes(
    name: str, kind: str, raw: bytes, options: dict[str, Any], *, at_hand: bool = False
) -> Data:
    """:class:`Data` of ``raw``, read as the whole content of file ``name`` (or a block of
    its lines, as :class:`Stream` reads it); ``at_hand``: bytes that no file holds (a
    request's body), ``name`` only naming them."""
    store = MemoryStore()
    schema = _scan(name, kind, io.BytesIO(raw), None, store=store, at_hand=at_hand, **options)
    aside = store.aside()
    X, y = store.result()
    return Data(
        X=X,
        y=y,
        format=kind,
        path=schema.path,
        feature_names=schema.feature_names,
        zero_based=schema.zero_based,
        notes=list(schema.notes),
        classes=schema.classes if schema.labelled else None,
        schema=schema,
        aside=aside,
    )


def read_chunk(
    schema: Schema, c: int, *, dtype: DTypeLike = np.float64, handle: Any = None
) -> tuple[Any, np.ndarray | None]:
    """Chunk ``c`` of a scanned file: from its cache, or parsed from the text.

    ``handle``: an open reader of the cache (``schema.cache.open()``), or the open
    ``schema.source`` when the schema has no cache.

    Returns
    -------
    X : ndarray (CSV), csr_matrix (svmlight) or list of str (text)
    y : ndarray or None

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.tsv"
    >>> _ = path.write_text("ham\\tsee you\\nspam\\tWIN\\nham\\tok\\n")
    >>> read_chunk(scan(path, chunk_size=2), 1)
    (['ok'], array(['ham'], dtype='<U3'))
    """
    if schema.cache is not None:
        if handle is None:
            with schema.cache.open() as handle:
                return read_chunk(schema, c, dtype=dtype, handle=handle)
        return _cached_chunk(schema, c, dtype, handle)
    if handle is None:
        with open(schema.source, "rb") as handle:
            return read_chunk(schema, c, dtype=dtype, handle=handle)
    return _text_chunk(schema, c, dtype, handle)


def _text_chunk(schema, c, dtype, handle):
    start, stop = int(schema.offsets[c]), int(schema.offsets[c + 1])
    handle.seek(start)
    first = int(schema.first_lines[c])
    X, y = parse(schema, handle.read(stop - start), first, dtype=dtype)
    n = len(X) if isinstance(X, list) else X.shape[0]
    if n != schema.n_rows[c]:
        raise DataFileError(
            f"{schema.path}, line {first}: chunk {c} now holds {n} samples, but the scan "
            f"counted {schema.n_rows[c]}; the file changed since it was scanned"
        )
    return X, y


def _cached_chunk(schema, c, dtype, reader):
    cache = schema.cache
    start = cache.skip + int(c) * schema.chunk_size if schema.chunk_size else cache.skip
    payload, ids = reader.rows(start, start + int(schema.n_rows[c]))
    X, y = assemble(schema, payload, ids, cache.values, dtype)
    if dtype != np.float64 and schema.format == "svmlight" and not np.all(np.isfinite(X.data)):
        # a value beyond float32: the text says where (the cache only holds numbers)
        if is_gzip(schema.path):
            return _text_chunk(schema, c, dtype, io.BytesIO(read_bytes(schema.path)))
        with open(schema.path, "rb") as text:
            return _text_chunk(schema, c, dtype, text)
    return X, y


def iter_chunks(
    path: str | os.PathLike[str],
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    n_features: int | None = None,
    *,
    order: Iterable[int] | None = None,
    index: Schema | None = None,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    label_column: str | int | None = None,
    labelled: bool | None = True,
    dtype: DTypeLike = np.float64,
    format: str | None = None,
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
) -> Iterator[tuple[Any, np.ndarray | None]]:
    """Yield ``(X, y)`` for every chunk of a data file, in file order or in ``order``.

    Chunks come from the index's binary cache when it has one (each in fresh
    arrays), else they are parsed from the text.

    Parameters
    ----------
    path : str or path-like
    chunk_size : int, default=10000
        Samples per chunk.
    n_features : int, default=None
        As in :func:`scan`.
    order : sequence of int, default=None
        Chunk numbers to visit (default: all, in file order).
    index : Schema, default=None
        A previous :func:`scan` of this file with chunks (saves the scan).
    zero_based, header, label_column, labelled, format, id_columns, ignore
        As in :func:`scan`.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64

    Yields
    ------
    X : csr_matrix (svmlight), ndarray (CSV) or list of str (text documents)
    y : ndarray or None

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.csv"
    >>> _ = path.write_text("x1,x2,label\\n-1,-1,0\\n1,-1,1\\n-1,1,1\\n1,1,1\\n")
    >>> [(X.shape, y.tolist()) for X, y in iter_chunks(path, chunk_size=3)]
    [((3, 2), [0, 1, 1]), ((1, 2), [1])]
    """
    if index is None:
        index = scan(
            path,
            chunk_size,
            n_features=n_features,
            zero_based=zero_based,
            header=header,
            label_column=label_column,
            labelled=labelled,
            format=format,
            id_columns=id_columns,
            ignore=ignore,
        )
    chunks = range(index.n_chunks) if order is None else order
    if index.cache is not None:  # the cache holds the file as it was scanned
        with index.cache.open() as reader:
            for c in chunks:
                yield read_chunk(index, int(c), dtype=dtype, handle=reader)
        return
    _check_unchanged(index)
    with open(index.source, "rb") as handle:
        for c in chunks:
            yield read_chunk(index, int(c), dtype=dtype, handle=handle)


def _check_unchanged(schema):
    stat = os.stat(schema.path)
    if stat.st_size != schema.size or stat.st_mtime_ns != schema.mtime_ns:
        raise DataFileError(f"{schema.path}: the file changed since it was scanned; scan it again")


def compile_parsers() -> dict[str, int]:
    """Compile (or load from numba's cache) the compiled parsers, as ``rosenblatt warmup`` may.

    The first large file a process reads otherwise waits for them (some seconds, once
    per installation). Returns the samples read with each.

    Examples
    --------
    >>> compile_parsers()
    {'svmlight': 2, 'csv': 1}
    """
    import tempfile

    from . import _common

    done = {}
    with tempfile.TemporaryDirectory(prefix=GZIP_TEMP_PREFIX) as folder:
        for kind, ext, content in (
            ("svmlight", ".svm", b"1 1:0.5 2:1e-7\n-1 3:2\n"),
            ("csv", ".csv", b"a,b\n1.5,x\n"),
        ):
            path = os.path.join(folder, "warmup" + ext)
            with open(path, "wb") as handle:
                handle.write(content)
            with _common.forcing_compiled():  # these tiny files too
                done[kind] = read(path).n_samples
    return done
