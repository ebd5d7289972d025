"""CSV: numeric features and a label column, one sample per record, an optional header.

Records follow RFC 4180 (:mod:`csv`): a quoted field may hold commas, doubled
quotes and line breaks (a quote opens a field only at its start: elsewhere it is a
character); surrounding whitespace is stripped; blank lines are skipped; every
record has as many fields as the first. A feature cell is what ``float()`` reads
of it, surrounding whitespace stripped. A field holds at most
:data:`~rosenblatt._core.config.CSV_FIELD_LIMIT` characters (131,072, Python's csv
module's limit), quoted or not; a longer one is an error naming its line and column
(most often a quoted field whose closing quote is missing).

``header="auto"`` takes the first record as a header only when it cannot be data
and looks like names:

- it cannot be data when a feature cell is not a finite number, or when its label
  is text while the next record's label is a number (``1,2,label`` over numeric
  labels);
- it looks like names when no cell is empty and none is a number with a fraction
  (names may be whole numbers: ``0,1,2,label``);
- a first record that cannot be data and does not look like names (``1.5,,0``,
  ``1.5,1.x,0``) is an error at its line naming the column.

A label column named by its header name implies a header.

Blocks of lines without quotes are parsed by the compiled parser of
:mod:`rosenblatt.engine.kernels.textparse` (numbers exactly as ``float()`` reads them;
a line of millions of fields without a Python object per field); blocks with
quotes, small files and lines the compiled parser leaves to Python go through
:mod:`csv`, with the same result.

Every check of a record looks at it and at the records before it (the first
record's at the one after it), so the error is the first bad row's in file order,
whatever the blocks the file is read in: the scan stops at a record it cannot read
(broken quotes, a field too long, the wrong number of fields, a bad byte); then the
header is decided, and the first of the records before it with a bad feature cell
or label (its cells before its label) is said, else the record the scan stopped at.

The reader does one job per module: the cells, records and blocks that both of its
readings share (``_csv_cells``), the scan of a whole file (``_csv_scan``: its loop over
the file's blocks and its state), and, here, the parse of a block of records.
"""

from __future__ import annotations

import csv
import io
import math
from typing import TYPE_CHECKING

import numpy as np

from . import _labels
from ._common import (
    Sizes,
    compiled,
    decode,
    fail,
    label_ids,
    normalize,
)
from ._csv_cells import (
    Dialect,
    blank,
    cell_problem,
    column_name,
    compiled_block,
    number,
    plain,
)
from ._csv_scan import scan  # noqa: F401  (the reader's scan: readers/__init__ reads it here)

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from ._schema import Schema


def parse(
    schema: Schema, raw: bytes, first_line: int, dtype: DTypeLike = np.float64
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(X, y)`` of a block of whole records starting at ``first_line``: dense ``X``."""
    if compiled(len(raw)) and plain(raw) and not schema.aside:
        parsed = _parse_compiled(schema, raw)
        if parsed is not None:
            X, y = parsed
            return np.ascontiguousarray(X, dtype=dtype), y
    return _parse_python(schema, raw, first_line, dtype)


def _parse_compiled(schema, raw):
    """The block by the compiled parser; None if it holds anything else than good rows."""
    if not raw.isascii():
        try:
            raw.decode(schema.encoding)
        except (UnicodeDecodeError, LookupError):
            return None
    buf = np.frombuffer(raw, dtype=np.uint8)
    width, label = schema.n_columns, schema.label_index
    parsed = compiled_block(buf, width, -1 if label is None else label, schema.n_features, Sizes())
    n, flagged, n_deferred, _, X, spans, deferred = parsed
    if flagged >= 0:  # (the scan held every field to the size limit)
        return None
    for r, f, a, b, _ in deferred[:n_deferred]:
        value = number(raw[a:b].decode(schema.encoding).strip())
        if value is None or not math.isfinite(value):
            return None
        X[r, f] = value
    if label is None:
        return X[:n], None
    label_start, label_end = spans[0, :n], spans[1, :n]
    ids, firsts = label_ids(buf, label_start, label_end)
    keys = [raw[label_start[r] : label_end[r]].decode(schema.encoding) for r in firsts]
    if any(key not in schema.label_map for key in keys):
        return None
    values = _labels.convert(keys, schema.label_kind, schema.label_map, None)
    return X[:n], values[ids]


def _parse_python(schema, raw, first_line, dtype):
    """The block by :mod:`csv`; a bad record raises its error (:func:`_locate`)."""
    text = normalize(decode(schema.path, raw, first_line, schema.encoding))
    rows = [
        cells for cells in csv.reader(io.StringIO(text, newline=""), Dialect) if not blank(cells)
    ]
    width, label = schema.n_columns, schema.label_index
    if any(len(cells) != width for cells in rows):
        raise _locate(schema, text, first_line)
    if schema.aside:  # the columns set aside are neither features nor label: left out
        keep = [j for j in range(width) if j == label or j not in schema.aside]
        rows = [[cells[j] for j in keep] for cells in rows]
        width, label = len(keep), None if label is None else keep.index(label)
    try:
        if label is None:
            X = np.array(rows, dtype=np.float64).reshape(len(rows), width)
            y = None
        elif schema.label_kind == _labels.INT:  # numbers throughout: convert in one go
            table = np.array(rows, dtype=np.float64).reshape(len(rows), width)
            X = np.delete(table, label, axis=1) if label != width - 1 else table[:, :-1]
            y = table[:, label].astype(np.int64)
        else:  # take the labels out of the rows (no copy of every row)
            labels = [cells.pop(label).strip() for cells in rows]
            X = np.array(rows, dtype=np.float64).reshape(len(rows), width - 1)
            y = _labels.convert(
                labels,
                schema.label_kind,
                schema.label_map,
                lambda k: _locate(schema, text, first_line),
            )
    except ValueError:
        raise _locate(schema, text, first_line) from None
    if not np.all(np.isfinite(X)):
        raise _locate(schema, text, first_line)
    return np.ascontiguousarray(X, dtype=dtype), y


def _locate(schema, text, first_line):
    """The error of the first bad cell of a block, naming its line and column."""
    path, width, label = schema.path, schema.n_columns, schema.label_index
    aside = schema.aside or ()
    reader = csv.reader(io.StringIO(text, newline=""), Dialect)
    previous = 0
    for cells in reader:
        line, previous = first_line + previous, reader.line_num
        if blank(cells):
            continue
        if len(cells) != width:
            return fail(
                path,
                line,
                f"{len(cells)} fields, but the data rows have {width}",
                "every row needs the same columns",
                code="ragged",
            )
        for j, cell in enumerate(cells):
            problem = cell_problem(cell) if j != label and j not in aside else None
            if problem:
                return fail(path, line, *problem, "cell", column=column_name(schema.header, j))
        if label is not None and cells[label].strip() not in schema.label_map:
            return _labels.changed(path, line, cells[label].strip())
    return fail(
        path,
        first_line,
        "the block does not parse as it did when the file was scanned",
        "the file changed; read it again",
        code="changed",
    )
