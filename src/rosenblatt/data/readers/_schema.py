"""What a scan learns about a file (:class:`Schema`), its chunks, and what a read returns."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ._cache import Cache


@dataclass(eq=False)
class Schema:
    """The schema of a data file, fixed by one scan of the whole file, and its chunks.

    Every block of the file is parsed against it, so a file reads the same in
    memory (one block) and streamed (one block per chunk).

    Attributes
    ----------
    path : str
    format : {"svmlight", "csv", "text"}
    chunk_size : int or None
        Samples per chunk (the last chunk may hold fewer); None: one chunk, the whole file.
    offsets : ndarray of int64, shape (n_chunks + 1,)
        Byte offset of each chunk's first sample; the last entry is the end of the data.
    first_lines : ndarray of int64, shape (n_chunks,)
        1-based line number of each chunk's first sample.
    n_rows : ndarray of int64, shape (n_chunks,)
    classes : ndarray
        The sorted class values (int64 or str; empty for a file without labels).
    n_features : int or None
        Columns of ``X`` (None for text: a vectorizer decides).
    zero_based : bool or None
        svmlight only: whether feature indices start at 0.
    label_index : int or None
        CSV only: the label's column (None without labels).
    header : list of str or None
        CSV only: the header row, if any.
    n_columns : int or None
        CSV only: fields per row.
    aside : list of int or None
        CSV only: the columns set aside (identifiers, ignored), neither features nor label.
    size, mtime_ns : int
        Size and modification time of the file when it was scanned.
    notes : list of str
        What the scan decided by itself ("auto"), and what to pass otherwise.
    labelled : bool
    label_kind : {"int", "text", "names"}
    label_map : dict
        Each distinct label string of the file to its value.
    source : str
        The file chunks are read from: ``path``, or the decompressed copy of a ``.gz`` file.
    encoding : str
    extra_features : {"error", "ignore"}
        svmlight with ``n_features``: whether an index beyond it is an error, or its
        entry is left out.
    extra_rows : int
        With ``extra_features="ignore"``: the rows that held an index beyond ``n_features``.
    labelled_by : int or None
        Text read with ``labelled=None``: the line whose tab (or none) decided ``labelled``.
    follow : dict
        The options that read the lines after the ones scanned as the rest of the same
        file (what they decided: a CSV header and columns, whether there are labels, the
        labels met so far): a stream reads each block of its input so.
    cache : rosenblatt.data.readers._cache.Cache or None
        The binary cache of the parsed records, when the scan wrote one: chunks
        are then read from it, not from the text.
    cleanups : list of weakref.finalize
        What deletes the schema's temporary files (see :meth:`close`).
    """

    path: str
    format: str
    chunk_size: int | None
    offsets: np.ndarray
    first_lines: np.ndarray
    n_rows: np.ndarray
    classes: np.ndarray
    n_features: int | None = None
    zero_based: bool | None = None
    label_index: int | None = None
    header: list | None = None
    n_columns: int | None = None
    aside: list | None = None
    size: int = 0
    mtime_ns: int = 0
    notes: list = field(default_factory=list)
    labelled: bool = True
    label_kind: str = "int"
    label_map: dict = field(default_factory=dict, repr=False)
    source: str = ""
    encoding: str = "UTF-8"
    extra_features: str = "error"
    extra_rows: int = 0
    labelled_by: int | None = None
    follow: dict = field(default_factory=dict, repr=False)
    cache: Cache | None = field(default=None, repr=False)
    cleanups: list = field(default_factory=list, repr=False)

    @property
    def n_chunks(self) -> int:
        return self.n_rows.shape[0]

    @property
    def n_samples(self) -> int:
        return int(self.n_rows.sum())

    @property
    def feature_names(self) -> list | None:
        """The header's names of the feature columns (CSV with a header)."""
        if self.header is None:
            return None
        others = {self.label_index, *(self.aside or ())}
        return [name for j, name in enumerate(self.header) if j not in others]

    def remove_source_with_self(self, remove: Callable[[], Any]) -> None:
        """Call ``remove()`` (delete a temporary copy) when this schema goes away, or at exit."""
        self.cleanups.append(weakref.finalize(self, remove))

    def close(self) -> None:
        """Delete the temporary files of this schema now (a gzip copy, a temporary cache).

        A kept cache (a folder given as ``cache``) stays.
        """
        for cleanup in self.cleanups:
            cleanup()


class Chunker:
    """Collect where every chunk of ``chunk_size`` records starts, records given in file order.

    With ``chunk_size=None`` the whole file is one chunk.

    Examples
    --------
    >>> chunks = Chunker(2)
    >>> chunks.add(np.array([0, 4, 9]), np.array([1, 2, 4]))
    >>> chunks.add(np.array([15]), np.array([6]))
    >>> chunks.count, chunks.offsets(20).tolist(), chunks.first_lines.tolist(), chunks.n_rows()
    (4, [0, 9, 20], [1, 4], [2, 2])
    """

    def __init__(self, chunk_size):
        self.chunk_size = chunk_size
        self.count = 0
        self._offsets, self._lines = [], []

    def add(self, offsets: np.ndarray, lines: np.ndarray) -> None:
        """Records starting at byte ``offsets[k]`` on line ``lines[k]`` (numpy arrays)."""
        n = len(offsets)
        if not n:
            return
        size = self.chunk_size or 0
        starts: np.ndarray | tuple[()]
        if size:
            starts = np.flatnonzero((self.count + np.arange(n)) % size == 0)
        else:
            starts = np.zeros(1, dtype=np.int64) if self.count == 0 else ()
        for k in starts:
            self._offsets.append(int(offsets[k]))
            self._lines.append(int(lines[k]))
        self.count += n

    @property
    def first_lines(self) -> np.ndarray:
        return np.array(self._lines, dtype=np.int64)

    def offsets(self, end: int) -> np.ndarray:
        return np.array(self._offsets + [end], dtype=np.int64)

    def n_rows(self) -> list:
        size = self.chunk_size or self.count
        full, rest = divmod(self.count, size) if size else (0, 0)
        return [size] * full + ([rest] if rest else [])

    def fill(self, schema: Schema, end: int) -> None:
        """Set ``schema``'s offsets, first lines and rows per chunk."""
        schema.offsets = self.offsets(end)
        schema.first_lines = self.first_lines
        schema.n_rows = np.array(self.n_rows(), dtype=np.int64)


@dataclass
class Data:
    """The content of a data file.

    Attributes
    ----------
    X : ndarray, scipy.sparse.csr_matrix or list of str
        Samples: a dense float64 array (CSV), a CSR matrix (svmlight) or the
        documents (text).
    y : ndarray or None
        Labels (int64 where every label is a whole number, else strings), or None
        for a file without labels.
    format : {"csv", "svmlight", "text"}
    path : str
    feature_names : list of str or None
        The CSV header's feature columns, when there is a header.
    zero_based : bool or None
        Whether the svmlight feature indices start at 0 (None for other formats).
    notes : list of str
        What reading decided by itself (header, index base) and what to pass otherwise.
    classes : ndarray or None
        The sorted class values.
    schema : Schema or None
        The scan of the file.
    aside : list of list of str or None
        CSV read with ``id_columns`` (or ``ignore``): the cells of those columns, as text,
        a list per sample (a :class:`~rosenblatt.data.readers.Stream`: of ``id_columns``).
    aside_names : list of str or None
        The header names of those columns (None: the file has no header).
    """

    X: Any  # ndarray, CSR matrix, or a list of texts
    y: np.ndarray | None
    format: str
    path: str
    feature_names: list | None = None
    zero_based: bool | None = None
    notes: list = field(default_factory=list)
    classes: np.ndarray | None = None
    schema: Schema | None = field(default=None, repr=False)
    aside: list | None = field(default=None, repr=False)
    aside_names: list | None = field(default=None, repr=False)

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
