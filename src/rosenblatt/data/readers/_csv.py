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
:mod:`rosenblatt.engine.kernels.textparse` (numbers exactly as ``float()`` reads them);
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

from ..._core.kernel_constants import FULL
from ...engine.kernels.loader import compiled_kernel
from ...exceptions import DataFileError
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
from ._schema import Chunker
from ._store import Labels, NullStore, Rows

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from ._schema import Schema

EXPECTED = "expected comma-separated numbers"


class _Dialect(csv.excel):
    skipinitialspace = True  # "1, 2" and '1, "2"'; trailing spaces are stripped after
    strict = False


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def cell_problem(cell: str) -> tuple[str, str | None] | None:
    """``(what, fix)`` of a feature cell that is not a finite number, or None.

    The same rule as the conversion of whole blocks (``float`` of the stripped cell).

    Examples
    --------
    >>> cell_problem(" 1.5 "), cell_problem("1.x")
    (None, ("'1.x' is not a number", None))
    """
    cell = cell.strip()
    if not cell:
        return "an empty (missing) value", "fill in or drop missing values"
    value = _number(cell)
    if value is None:
        return f"{cell!r} is not a number", None
    if not math.isfinite(value):
        return f"{cell!r} is a missing or infinite value", "fill in or drop missing values"
    return None


def _column(header, j):
    """How an error names column ``j`` (0-based) of a file: by its name when the file has a
    ``header``, else by its 1-based position; the one rule, whatever block the error is in."""
    return repr(header[j]) if header else str(j + 1)


def _is_int(text) -> bool:
    try:
        int(text)
    except (TypeError, ValueError):
        return False
    return True


def _blank(cells) -> bool:
    return len(cells) <= 1 and not (cells and cells[0].strip())


class _Feed:
    """Lines for :func:`csv.reader`, noting when the reader asked beyond the last one."""

    def __init__(self, lines):
        self.lines, self.next, self.ran_out = lines, 0, False

    def __iter__(self):
        return self

    def __next__(self):
        if self.next >= len(self.lines):
            self.ran_out = True
            raise StopIteration
        self.next += 1
        return self.lines[self.next - 1] + "\n"


def csv_records(
    path: str, lines: Sequence[str], first_line: int, final: bool
) -> tuple[list[tuple[int, list[str]]], int | None]:
    """The non-blank records of ``lines``, parsed by :mod:`csv`, with the line each starts on.

    Returns ``(records, cut)``: ``records`` lists ``(k, cells)`` (``k`` the index of
    the record's first line) and ``cut`` is the index of a last record that a
    quoted field carries beyond ``lines`` (None if there is none; an error when
    ``final``).
    """
    feed = _Feed(lines)
    reader = csv.reader(feed, _Dialect)
    records: list[tuple[int, list[str]]] = []
    while True:
        start = feed.next
        try:
            cells = next(reader)
        except StopIteration:
            return records, None
        except csv.Error as exc:
            raise fail(
                path,
                first_line + start,
                f"{exc}",
                "check the quotes and the characters of this record",
                code="csv",
            ) from None
        if feed.ran_out:
            if not final:
                return records, start
            raise fail(
                path,
                first_line + start,
                "a quoted field starts on this line and is not closed",
                'a quoted field ends with " (a " inside it is written "")',
                code="csv",
            )
        if not _blank(cells):
            records.append((start, cells))


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
        self.by_name = isinstance(label_column, str) and not _is_int(label_column)
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
            if self.ignore or not all(map(_is_int, self.id_columns)):
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
                value = _number(cell.strip())
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
        parsed = _csv_block(buf, self.width, label, self.n_columns, self.sizes)
        n, flagged, n_deferred, longest, X, spans, deferred = parsed
        if flagged >= 0 or longest >= self.limit:
            return False
        encoding = self.schema.encoding
        for r, f, a, b, k in deferred[:n_deferred]:
            cell = block[a:b].decode(encoding)
            value = _number(cell.strip())
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
                self.path, line, *cell_problem(cell), "cell", column=_column(schema.header, j)
            )
        return chunks, labels.keys

    def check_first(self, cells, line):
        """Refuse a first record given as data that holds something other than numbers."""
        for j in self.features:
            problem = cell_problem(cells[j])
            if problem:
                what, fix = problem
                fix = (f"{fix}; " if fix else "") + _if_a_header(line)
                column = _column(self.schema.header, j)
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
            and _number(label) is None
            and bool(others)
            and all(_number(other) is not None for other in others)
        )
        if problem is None and not text_label:
            return False
        if all(c and not _fraction(c) for c in cells):
            # a note only where the guess could be wrong: a plain header of names cannot be data
            if any(_number(c) is not None for c in cells):
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
        raise fail(self.path, line, what, fix, "header", column=_column(None, j))


def _fraction(cell) -> bool:
    """A number that is not whole (no header holds one as a name)."""
    value = _number(cell)
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


def aside_columns(
    path: str,
    cells: Sequence[str],
    id_columns: Sequence[str | int],
    ignore: Sequence[str],
    header: bool | str = "auto",
    line: int = 1,
) -> list[int]:
    """The 0-based columns that ``id_columns`` (header names or 0-based indices, negative
    from the end) and ``ignore`` (header names) set aside, found in a file's first record
    ``cells`` (on ``line``): the one column selector of :func:`scan` and of
    :class:`~rosenblatt.data.readers.Stream`.

    A name needs a header (``header`` not False). A name the header lacks, an index out
    of range, or a column given twice (by name or by index) is an error.

    Examples
    --------
    >>> aside_columns("d.csv", ["id", "x", "note", "y"], ["id"], ["note"])
    [0, 2]
    >>> aside_columns("d.csv", ["id", "x", "y"], ["id", 0], [])
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.DataFileError: d.csv: column 'id' is set aside twice \
(id_columns='id' and id_columns=0); give each column once
    """
    # (option, value, by name): ignore takes names only, whatever they look like
    given = [("id_columns", c, not _is_int(c)) for c in id_columns]
    given += [("ignore", str(c), True) for c in ignore]
    named = [(option, c) for option, c, by_name in given if by_name]
    if named and header is False:
        option, column = named[0]
        raise DataFileError(
            f"{path}: {option}={column!r} names a column, but header=False; give its 0-based "
            "index, or let line 1 be the header"
        )
    width = len(cells)
    found: list[int] = []
    by: dict[int, str] = {}  # how each column found was given
    for option, column, by_name in given:
        if by_name:
            name = str(column)
            if name not in cells:
                raise DataFileError(
                    f"{path}, line {line}: {option}={name!r} names no column "
                    f"({near_names(name, cells)}); give a header name or a 0-based index"
                )
            j = list(cells).index(name)
        elif not -width <= int(column) < width:
            raise DataFileError(
                f"{path}: {option}={int(column)} is out of range for {width} columns; give "
                f"a 0-based index below {width}"
            )
        else:
            j, column = int(column) % width, int(column)
        if j in by:
            raise DataFileError(
                f"{path}: column {cells[j]!r} is set aside twice ({by[j]} and "
                f"{option}={column!r}); give each column once"
            )
        by[j] = f"{option}={column!r}"
        found.append(j)
    return found


def block_bounds(size: int, width: int, n_features: int) -> tuple[int, int]:
    """``(records, cells)`` of room that the compiled parser never outgrows on a block of
    ``size`` bytes, records of ``width`` fields and ``n_features`` feature columns.

    A record it stores takes ``width - 1`` commas and a line break (one field: a character
    and a line break), so a block holds at most ``(size + 1) // max(width, 2)`` of them;
    every feature cell may be left to ``float()``; and the parser wants a free row, and
    room for a record's ``width`` cells, to start on a line: hence one record more and
    ``+ width``.

    Examples
    --------
    >>> block_bounds(len(b"1,2,a\\n3,4,b\\n"), 3, 2)
    (5, 13)
    """
    records = (size + 1) // max(width, 2) + 1
    return records, records * max(n_features, 1) + width


def _parse_block(buf, width, label, n_features, records, cells):
    """:func:`.textparse.csv_block` into arrays with room for ``records`` records and
    ``cells`` deferred cells: its four results, then ``X``, the spans and the deferred
    cells."""
    csv_block = compiled_kernel("textparse.csv_block")
    X = np.empty((records, n_features))
    spans = np.empty((4, records), dtype=np.int64)
    deferred = np.empty((cells, 5), dtype=np.int64)
    counts = csv_block(buf, width, label, X, *spans, deferred)
    return (*counts, X, spans, deferred)


def _csv_block(buf, width, label, n_features, sizes):
    """The compiled parser on a block, with arrays sized by ``sizes`` (``_common.Sizes``).

    Returns its four results, then ``X``, the spans and the deferred cells.
    """
    size = buf.shape[0]
    bounds = block_bounds(size, width, n_features)
    # first what earlier blocks suggest, but never more than the block can hold: the guess
    # counts records by bytes alone, and times the columns of a wide file it could ask
    # for gigabytes for a block of a few long rows; when that is too small, room for what
    # the block can hold at most, which always suffices (see block_bounds)
    guess = tuple(min(g, b) for g, b in zip(sizes.guess(size), bounds))
    parsed = _parse_block(buf, width, label, n_features, *guess)
    if parsed[1] == FULL:
        parsed = _parse_block(buf, width, label, n_features, *bounds)
    sizes.learn(size, parsed[0], parsed[2])
    return parsed


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
    parsed = _csv_block(buf, width, -1 if label is None else label, schema.n_features, Sizes())
    n, flagged, n_deferred, longest, X, spans, deferred = parsed
    if flagged >= 0 or longest >= csv.field_size_limit():
        return None
    for r, f, a, b, _ in deferred[:n_deferred]:
        value = _number(raw[a:b].decode(schema.encoding).strip())
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
        cells for cells in csv.reader(io.StringIO(text, newline=""), _Dialect) if not _blank(cells)
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
    reader = csv.reader(io.StringIO(text, newline=""), _Dialect)
    previous = 0
    for cells in reader:
        line, previous = first_line + previous, reader.line_num
        if _blank(cells):
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
                return fail(path, line, *problem, "cell", column=_column(schema.header, j))
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
