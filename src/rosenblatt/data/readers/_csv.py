"""CSV: numeric features and a label column, one sample per record, an optional header.

Records follow RFC 4180 (:mod:`csv`): a quoted field may hold commas, doubled
quotes and line breaks; surrounding whitespace is stripped; blank lines are
skipped; every record has as many fields as the first. A feature cell is what
``float()`` reads of it, surrounding whitespace stripped.

``header="auto"`` takes the first record as a header only when it cannot be data
and looks like names:

- it cannot be data when a feature cell is not a finite number, or when its label
  is text while every other label is a number (``1,2,label`` over numeric labels);
- it looks like names when no cell is empty and none is a number with a fraction
  (names may be whole numbers: ``0,1,2,label``);
- a first record that cannot be data and does not look like names (``1.5,,0``,
  ``1.5,1.x,0``) is an error at its line naming the column.

A label column named by its header name implies a header.

Blocks of lines without quotes are parsed by the compiled parser of
:mod:`rosenblatt.engine.kernels.textparse` (numbers exactly as ``float()`` reads them;
the cells, records and blocks both readings share are :mod:`._csv_cells`');
blocks with quotes, small files and lines the compiled parser leaves to Python
go through :mod:`csv`, with the same result. Errors come in the order of the
checks: a record with the wrong number of fields or broken quotes stops the
scan; then the header, the columns and the labels are decided for the whole
file; then the first feature cell that is not a finite number is reported.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _labels
from ._common import (
    NUMERIC_CONTROL,
    Sizes,
    compiled,
    decode,
    fail,
    label_ids,
    line_starts,
    near_names,
    normalize,
    pieces,
    refuse_control_bytes,
    text_lines,
)
from ._csv_cells import (
    EXPECTED,
    Dialect,
    aside_columns,
    blank,
    cell_problem,
    column_name,
    compiled_block,
    csv_records,
    is_int,
    number,
)
from ._schema import Chunker
from ._store import Labels, NullStore, Rows

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from ._schema import Schema


class _Scan:
    """The state of a CSV scan (see :func:`scan`)."""

    def __init__(self, schema, chunks, store, labelled, n_features, header, label_column, aside):
        self.schema, self.path, self.store = schema, schema.path, store
        self.labelled, self.n_features = labelled, n_features
        self.header, self.label_column = header, label_column
        # columns that are no features, kept as text: ``(indices, id_columns, ignore)``, the
        # latter two to find in the first record (the indices: a Stream found them already)
        self.aside, self.id_columns, self.ignore = (list(given) for given in aside)
        self.features = []  # the file's column of each feature
        self.by_name = isinstance(label_column, str) and not is_int(label_column)
        self.first = None  # (cells, line) of the first record
        self.width = self.label = None
        self.labels = Labels()  # labels of the records after the first
        self.bad = None  # (line, column, cell) of the first feature cell that is not a number
        self.as_data = chunks  # chunks if the first record is data ...
        self.after_header = Chunker(chunks.chunk_size)  # ... and if it is a header
        self.use_compiled = compiled(schema.size) and not any(aside)  # Python keeps text
        self.sizes = Sizes()
        self.limit = csv.field_size_limit()

    @property
    def n_columns(self):
        """Feature columns."""
        return len(self.features)

    def start(self, cells, line, offset):
        """The first record fixes the columns and the label's place."""
        cells = [c.strip() for c in cells]
        self.first, self.width = (cells, line), len(cells)
        if self.id_columns or self.ignore:
            self.aside = aside_columns(
                self.path, cells, self.id_columns, self.ignore, self.header, line
            )
            if self.ignore or not all(map(is_int, self.id_columns)):
                self.header = True  # names imply a header
        self.aside = [_position(self.path, line, j, self.width, "column") for j in self.aside]
        if self.labelled is None:
            width = self.width - len(set(self.aside))
            self.labelled = _labelled(self.path, line, width, self.n_features)
        if self.by_name:
            if self.header is False:
                raise fail(
                    self.path,
                    line,
                    f"label_column={self.label_column!r} names a column, but header=False",
                    "give the label column's 0-based index, or let line 1 be the header",
                    code="option",
                )
            if self.label_column not in cells:
                raise fail(
                    self.path,
                    line,
                    f"no column named {self.label_column!r} "
                    f"({near_names(self.label_column, cells)})",
                    "give the label column's header name or its 0-based index",
                    code="option",
                )
            self.header = True
            self.label = cells.index(self.label_column)
        elif self.labelled:
            self.label = _position(self.path, line, self.label_column, self.width)
        others = {self.label, *self.aside}
        self.features = [j for j in range(self.width) if j not in others]
        # a placeholder row: the scan fills it in if the record is data, or skips it
        starts, lines = np.array([offset], np.int64), np.array([line], np.int64)
        self.as_data.add(starts, lines)
        self.store.add(
            Rows(
                1,
                starts,
                lines,
                np.full(1, -1, np.int32) if self.labelled else None,
                X=np.zeros((1, self.n_columns)),
                aside=[[cells[j] for j in self.aside]] if self.aside else None,
            )
        )

    def ragged(self, line, n):
        return fail(
            self.path,
            line,
            f"{n} fields, but line {self.first[1]} has {self.width}",
            "every row needs the same columns",
            code="ragged",
        )

    def column(self, k):
        """The column of feature ``k``."""
        return self.features[k]

    def add_rows(self, rows, keys, key_lines, ids):
        """A block's records: labels to ids, to the store and the chunks."""
        if self.labelled:
            rows.labels = self.labels.add(keys, key_lines)[ids] if rows.n else ids
        self.store.add(rows)
        self.as_data.add(rows.starts, rows.lines)
        self.after_header.add(rows.starts, rows.lines)

    def add_cells(self, offset, line0, block, records):
        """Records split into cells (``(k, cells)``, ``k`` its first line's index), in Python."""
        if not records:
            return
        starts = line_starts(offset, block)
        n, width, label = len(records), self.width, self.label
        X = np.empty((n, self.n_columns))
        lines = np.empty(n, dtype=np.int64)
        at = np.empty(n, dtype=np.int64)
        keys, key_lines, ids = {}, [], np.empty(n, dtype=np.int32)
        aside = [] if self.aside else None
        for r, (k, cells) in enumerate(records):
            line = line0 + k
            if len(cells) != width:
                raise self.ragged(line, len(cells))
            lines[r], at[r] = line, starts[k]
            if self.labelled:
                key = cells[label].strip()
                if key not in keys:
                    keys[key] = len(keys)
                    key_lines.append(line)
                ids[r] = keys[key]
            if aside is not None:
                aside.append([cells[j].strip() for j in self.aside])
                cells = [cells[j] for j in self.features]
            elif self.labelled:
                del cells[label]
            for f, cell in enumerate(cells):
                value = number(cell.strip())
                if value is None or not math.isfinite(value):
                    if self.bad is None:
                        self.bad = (line, self.column(f), cell)
                    value = np.nan
                X[r, f] = value
        self.add_rows(Rows(n, at, lines, X=X, aside=aside), list(keys), key_lines, ids)

    def add_plain(self, offset, line0, block):
        """A block of lines without quotes (and past the first record): a record per line."""
        if self.use_compiled:
            if not block.isascii():  # an invalid byte is an error at its line
                decode(self.path, block, line0, self.schema.encoding)
            if self._add_compiled(offset, line0, block):
                return
        lines = text_lines(decode(self.path, block, line0, self.schema.encoding))
        if lines and max(map(len, lines)) >= self.limit:  # csv may refuse a field this long
            records, _ = csv_records(self.path, lines, line0, final=True)
        else:
            records = [(k, text.split(",")) for k, text in enumerate(lines) if text.strip()]
        self.add_cells(offset, line0, block, records)

    def _add_compiled(self, offset, line0, block):
        """The block by the compiled parser; False when Python must read it."""
        buf = np.frombuffer(block, dtype=np.uint8)
        label = -1 if self.label is None else self.label
        parsed = compiled_block(buf, self.width, label, self.n_columns, self.sizes)
        n, flagged, n_deferred, longest, X, spans, deferred = parsed
        if flagged >= 0 or longest >= self.limit:
            return False
        encoding = self.schema.encoding
        for r, f, a, b, k in deferred[:n_deferred]:
            cell = block[a:b].decode(encoding)
            value = number(cell.strip())
            if value is None or not math.isfinite(value):
                if self.bad is None:
                    self.bad = (line0 + int(k), self.column(int(f)), cell)
                value = np.nan
            X[r, f] = value
        label_start, label_end, row_line, row_start = (s[:n] for s in spans)
        keys, key_lines, ids = [], [], None
        if self.labelled:
            ids, firsts = label_ids(buf, label_start, label_end)
            keys = [block[label_start[r] : label_end[r]].decode(encoding) for r in firsts]
            key_lines = row_line[firsts] + line0
        rows = Rows(n, row_start + offset, row_line + line0, X=X[:n])
        self.add_rows(rows, keys, key_lines, ids)
        return True

    def finish(self, schema, names):
        """Decide the header, check the columns, decide the labels; the chunks to use."""
        if self.first is None:
            raise fail(self.path, None, f"no data rows ({EXPECTED})", code="empty")
        cells, line = self.first
        header = self.header
        if header == "auto":
            header = self.header_auto(cells, line)
        elif not header:  # data by request: say so before the labels' verdict
            self.check_first(cells, line)
        labels = self.labels
        if header:
            chunks, schema.header = self.after_header, cells
            if not chunks.count:
                raise fail(self.path, None, "a header row but no data rows", code="empty")
            self.store.skip_first()
        else:
            chunks = self.as_data
            label = labels.add([cells[self.label]], [line])[0] if self.labelled else None
            self.store.set_first([float(cells[j]) for j in self.features], label)
        n_features = self.n_columns
        if self.n_features is not None and n_features != self.n_features:
            first_data = line if not header else int(chunks.first_lines[0])
            raise fail(
                self.path,
                first_data,
                f"{n_features} feature columns, but the model expects {self.n_features}",
                code="columns",
            )
        schema.labelled = bool(self.labelled)
        schema.n_columns, schema.n_features = self.width, n_features
        schema.label_index = self.label if self.labelled else None
        schema.aside = sorted(set(self.aside)) or None
        if self.labelled:
            schema.label_kind, schema.label_map, schema.classes = _labels.decide(
                self.path, labels.first_lines, names=names
            )
        if self.bad is not None:
            line, j, cell = self.bad
            raise fail(
                self.path, line, *cell_problem(cell), "cell", column=column_name(schema.header, j)
            )
        return chunks, labels.keys

    def check_first(self, cells, line):
        """Refuse a first record given as data that holds something other than numbers."""
        for j in self.features:
            problem = cell_problem(cells[j])
            if problem:
                what, fix = problem
                fix = (f"{fix}; " if fix else "") + _if_a_header(line)
                column = column_name(self.schema.header, j)
                raise fail(self.path, line, what, fix, "header", column=column)

    def header_auto(self, cells, line):
        """Whether the first record is a header (``header="auto"``, see the module)."""
        problem = next(
            ((j, *cell_problem(cells[j])) for j in self.features if cell_problem(cells[j])),
            None,
        )
        label = cells[self.label] if self.labelled else None
        others = self.labels.ids
        text_label = (
            bool(label)
            and number(label) is None
            and bool(others)
            and all(number(other) is not None for other in others)
        )
        if problem is None and not text_label:
            return False
        if all(c and not _fraction(c) for c in cells):
            # a note only where the guess could be wrong: a plain header of names cannot be data
            if any(number(c) is not None for c in cells):
                why = (
                    f"its label {label!r} is text, where every other label is a number"
                    if problem is None
                    else "it holds names, not numbers"
                )
                self.schema.notes.append(
                    f"line {line} read as a header ({_names(cells)}): {why}; pass "
                    "header=False to read it as data"
                )
            return True
        j, what, fix = problem or (
            self.label,
            f"the label {label!r} is text, where every other label is a number",
            None,
        )
        fix = _if_a_header(line) + (f"; if not, {fix}" if fix else "")
        raise fail(self.path, line, what, fix, "header", column=column_name(None, j))


def _fraction(cell) -> bool:
    """A number that is not whole (no header holds one as a name)."""
    value = number(cell)
    return value is not None and not (math.isfinite(value) and value.is_integer())


def _labelled(path, line, width, n_features):
    """Whether a prediction file holds labels: by its columns and the model's features."""
    if n_features is None or width == n_features + 1:
        return True
    if width == n_features:
        return False
    raise fail(
        path,
        line,
        f"{width} columns, but the model expects {n_features} features "
        f"(or {n_features} features and a label)",
        code="columns",
    )


def _position(path, line, label_column, width, what="label column"):
    """The 0-based index of a column given by its index (negative: from the end)."""
    if label_column is None:
        return width - 1
    index = int(label_column)
    if not -width <= index < width:
        raise fail(path, line, f"{what} {index} is out of range for {width} columns", code="option")
    return index % width


def _plain(block) -> bool:
    """Whether a block can be read a line per record (no quotes, no NUL)."""
    return b'"' not in block and b"\0" not in block


def scan(
    schema: Schema,
    handle: Any,
    chunks: Chunker,
    store: NullStore,
    *,
    labelled: bool | None = True,
    n_features: int | None = None,
    header: bool | str = "auto",
    label_column: str | int | None = None,
    names: Sequence[str] | None = None,
    header_names: Sequence[str] | None = None,
    aside: Sequence[int] = (),
    id_columns: Sequence[str | int] | None = None,
    ignore: Sequence[str] | None = None,
    **_: Any,
) -> tuple[int, Chunker, list[Any]]:
    """Read the whole file once: header, columns, records, labels, chunk boundaries.

    ``header_names``: the header of the file these lines come from, when they are a
    block after it (:class:`~rosenblatt.data.readers.Stream`), so that an error names
    a column as it would in the whole file. ``aside``: columns (0-based indices) that
    are no features; their cells are kept as text (the store's ``aside`` rows).
    ``id_columns`` and ``ignore``: such columns by name or index, found in the first
    record (:func:`aside_columns`).
    """
    path = schema.path
    if header_names is not None:
        schema.header = list(header_names)
    given = (aside, id_columns or (), ignore or ())
    state = _Scan(schema, chunks, store, labelled, n_features, header, label_column, given)
    carry = None  # (offset, line, block, lines) of a record that a quoted field carries on
    cut: int | None  # where a block is cut: a byte offset, or csv_records' record index
    end = 0
    for offset, line0, block in pieces(handle):
        end = offset + len(block)
        refuse_control_bytes(path, block, line0, NUMERIC_CONTROL)
        if carry is None and _plain(block):
            if state.first is None:  # the first record, in Python
                lines = text_lines(decode(path, block, line0, schema.encoding))
                k = next((k for k, text in enumerate(lines) if text.strip()), None)
                if k is None:
                    continue
                if len(lines[k]) >= state.limit:
                    cells = csv_records(path, lines[k : k + 1], line0 + k, final=True)[0][0][1]
                else:
                    cells = lines[k].split(",")
                starts = line_starts(offset, block)
                state.start(cells, line0 + k, int(starts[k]))
                if k + 1 == len(lines):
                    continue
                cut = int(starts[k + 1]) - offset
                offset, line0, block = offset + cut, line0 + k + 1, block[cut:]
            state.add_plain(offset, line0, block)
            continue
        lines = text_lines(decode(path, block, line0, schema.encoding))
        if carry is not None:
            offset, line0, block, lines = (carry[0], carry[1], carry[2] + block, carry[3] + lines)
        records, cut = csv_records(path, lines, line0, final=False)
        carry = None
        if cut is not None:
            at = int(line_starts(offset, block)[cut]) - offset
            carry = (offset + at, line0 + cut, block[at:], lines[cut:])
            block = block[:at]
        _add_records(state, offset, line0, block, records)
    if carry is not None:
        offset, line0, block, lines = carry
        records = csv_records(path, lines, line0, final=True)[0]
        _add_records(state, offset, line0, block, records)
    chunks, keys = state.finish(schema, names)
    return end, chunks, keys


def _add_records(state, offset, line0, block, records):
    if records and state.first is None:
        k, cells = records.pop(0)
        state.start(cells, line0 + k, int(line_starts(offset, block)[k]))
    state.add_cells(offset, line0, block, records)


def parse(
    schema: Schema, raw: bytes, first_line: int, dtype: DTypeLike = np.float64
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(X, y)`` of a block of whole records starting at ``first_line``: dense ``X``."""
    if compiled(len(raw)) and _plain(raw) and not schema.aside:
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
    n, flagged, n_deferred, longest, X, spans, deferred = parsed
    if flagged >= 0 or longest >= csv.field_size_limit():
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


def _if_a_header(line):
    return f"if line {line} is a header, pass header=True"


def _names(cells, shown=6):
    """Header names for a note: the first few and how many in all (a wide file has hundreds)."""
    if len(cells) <= shown:
        return ", ".join(cells)
    return f"{', '.join(cells[:shown])}, ... {len(cells)} names in all"
