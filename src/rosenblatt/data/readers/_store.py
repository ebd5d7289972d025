"""Where a scan puts the records it parsed: nowhere, in memory, or a binary cache.

A scan parses every record of a file once (that is how it checks the file) and
hands each block's records, as :class:`Rows`, to a store:

- :class:`NullStore` drops them (a scan that only fixes the schema);
- :class:`MemoryStore` keeps them, for :func:`rosenblatt.data.readers.read`;
- :class:`~._cache.CacheWriter` appends them to a binary cache on disk, which
  streaming then reads chunk by chunk instead of the text.

Labels travel as ids: the scan numbers each distinct label string in order of
first appearance (:class:`Labels`), and once the scan has decided what the labels
mean, :func:`label_values` gives the value of every id. Row ``k`` of a store is
the ``k``-th record of the file; a CSV store starts with the first record, whose
label id the scan fills in if it is data, or which it skips (a header).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _labels

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from ._schema import Schema


class Rows:
    """The records of one block, in file order.

    Attributes
    ----------
    n : int
    starts, lines : ndarray of int64
        Byte offset and 1-based line of each record.
    labels : ndarray of int32 or None
        Each record's label id (see :class:`Labels`).
    indptr, indices, values : ndarray
        svmlight: CSR arrays (``indptr`` from 0; indices as written in the file).
    X : ndarray of shape (n, n_features)
        CSV: the feature cells.
    aside : list of list of str or None
        CSV: the cells of the columns set aside (no features), as text.
    documents : list of str
        Text.
    """

    __slots__ = (
        "n",
        "starts",
        "lines",
        "labels",
        "indptr",
        "indices",
        "values",
        "X",
        "aside",
        "documents",
    )

    def __init__(self, n, starts, lines, labels=None, **payload):
        self.n, self.starts, self.lines, self.labels = n, starts, lines, labels
        for name in ("indptr", "indices", "values", "X", "aside", "documents"):
            setattr(self, name, payload.get(name))


class Labels:
    """Number the distinct label strings of a file in order of first appearance.

    ``first_lines`` maps each to the first line it is on, as
    :func:`._labels.decide` wants it.

    Examples
    --------
    >>> labels = Labels()
    >>> labels.add(["b", "a"], [3, 4]).tolist(), labels.add(["a", "c"], [9, 10]).tolist()
    ([0, 1], [1, 2])
    >>> labels.keys, labels.first_lines
    (['b', 'a', 'c'], {'b': 3, 'a': 4, 'c': 10})
    """

    def __init__(self):
        self.ids, self.first_lines = {}, {}

    @property
    def keys(self) -> list:
        return list(self.ids)

    def add(self, keys: Sequence[Any], lines: Sequence[int] | np.ndarray) -> np.ndarray:
        """The ids of ``keys`` (a block's distinct labels, first seen on ``lines``)."""
        out = np.empty(len(keys), dtype=np.int32)
        ids, first_lines = self.ids, self.first_lines
        for k, (key, line) in enumerate(zip(keys, lines)):
            found = ids.get(key)
            if found is None:
                found = ids[key] = len(ids)
                first_lines[key] = int(line)
            elif line < first_lines[key]:
                first_lines[key] = int(line)
            out[k] = found
        return out


def label_values(schema: Schema, keys: Sequence[Any]) -> np.ndarray | None:
    """The value of every label id (``keys`` in id order), or None without labels."""
    if not schema.labelled:
        return None
    dtype = str if schema.label_kind == _labels.TEXT else np.int64
    mapping = schema.label_map
    return np.array([mapping[key] for key in keys], dtype=dtype)


def sparse(
    indptr: np.ndarray,
    indices: np.ndarray,
    values: np.ndarray,
    base: int,
    n_features: int | None,
    dtype: DTypeLike,
    drop_beyond: bool = False,
) -> Any:
    """A CSR matrix from a store's arrays: indices shifted to zero-based, ``dtype`` values;
    ``drop_beyond``: the entries of indices beyond ``n_features`` are left out.

    Examples
    --------
    >>> X = sparse(np.array([0, 2, 3]), np.array([1, 5, 2]), np.array([0.5, 9.0, 1.0]), 1, 3,
    ...            np.float64, drop_beyond=True)
    >>> X.toarray().tolist()
    [[0.5, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    import scipy.sparse as sp  # not for CSV and text (``rosenblatt predict`` stays light)

    if base:  # the arrays are the caller's own
        indices = np.subtract(indices, base, out=indices)
    if drop_beyond and n_features is not None and indices.size and indices.max() >= n_features:
        keep = indices < n_features
        indptr = np.concatenate(([0], np.cumsum(keep)))[indptr]
        indices, values = indices[keep], values[keep]
    if values.dtype != dtype:
        with np.errstate(over="ignore"):  # a value beyond float32: the caller says where
            values = values.astype(dtype)
    X = sp.csr_matrix(
        (values, indices, indptr), shape=(indptr.shape[0] - 1, n_features), copy=False
    )
    X.has_sorted_indices = True  # indices increase along every line: the readers check it
    return X


def assemble(
    schema: Schema,
    payload: Any,
    ids: np.ndarray | None,
    values: np.ndarray | None,
    dtype: DTypeLike,
) -> tuple[Any, np.ndarray | None]:
    """``(X, y)`` of rows read back from a store: ``payload`` is what :meth:`rows` gave."""
    if schema.format == "svmlight":
        indptr, indices, data = payload
        base, ignore = 0 if schema.zero_based else 1, schema.extra_features == "ignore"
        X = sparse(indptr, indices, data, base, schema.n_features, dtype, ignore)
    elif schema.format == "csv":
        X = payload if payload.dtype == dtype else payload.astype(dtype)
    else:
        X = payload
    y = None if values is None else values[ids]
    return X, y


class NullStore:
    """Drops what the scan parsed; counts the records."""

    temporary = False

    def __init__(self):
        self.count = 0

    def add(self, rows: Any) -> None:
        self.count += rows.n

    def set_first(self, label: Any) -> None:
        """The first record of a CSV file is data: its row (the first one added) holds its
        values, and ``label`` is its label's id (None without labels)."""

    def skip_first(self) -> None:
        pass

    def finish(self, schema: Schema, keys: Sequence[Any]) -> None:
        pass

    def abort(self) -> None:
        pass


class MemoryStore(NullStore):
    """Keeps every block's records; :meth:`result` joins them into ``(X, y)``."""

    def __init__(self):
        super().__init__()
        self.parts, self.skip, self.first = [], 0, None

    def add(self, rows: Any) -> None:
        super().add(rows)
        self.parts.append(rows)

    def set_first(self, label: Any) -> None:
        self.first = label

    def skip_first(self) -> None:
        self.skip = 1

    def finish(self, schema: Schema, keys: Sequence[Any]) -> None:
        self.schema, self.values = schema, label_values(schema, keys)

    def aside(self) -> list | None:
        """CSV: the cells of the columns set aside, a list per record (None: none set aside);
        before :meth:`result`."""
        if not self.parts or self.parts[0].aside is None:
            return None
        return [cells for p in self.parts for cells in p.aside][self.skip :]

    def result(self) -> tuple[Any, np.ndarray | None]:
        """``(X, y)`` of the whole file (float64)."""
        schema, parts = self.schema, self.parts
        if self.first is not None and parts[0].labels is not None:
            parts[0].labels[0] = self.first
        ids = None
        if self.values is not None:
            ids = np.concatenate([p.labels for p in parts])[self.skip :]
        payload: Any
        if schema.format == "svmlight":
            nnz = np.cumsum([0] + [p.indptr[-1] for p in parts])
            indptr = np.concatenate(
                [np.zeros(1, np.int64)] + [p.indptr[1:] + nnz[k] for k, p in enumerate(parts)]
            )
            indices = np.concatenate([p.indices for p in parts])
            data = np.concatenate([p.values for p in parts])
            payload = (indptr, indices, data)
        elif schema.format == "csv":
            X = parts[0].X
            # one part: no copy (a line of millions of fields), unless its rows are a slice of
            # much more room (the compiled parser's guess), which a copy gives back
            if len(parts) > 1 or (X.base is not None and X.base.nbytes > 2 * X.nbytes):
                X = np.concatenate([p.X for p in parts])
            payload = X[self.skip :]
        else:
            payload = [document for p in parts for document in p.documents]
        self.parts = []
        return assemble(schema, payload, ids, self.values, np.float64)
